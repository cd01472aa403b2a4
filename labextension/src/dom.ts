// The one way the views make DOM elements: text always goes in through textContent, so a
// name that comes from the kernel (an op named `<img src=x onerror=...>`) stays text.
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}
