// Pan (drag) and zoom (wheel, buttons) for one element inside a clipping viewport,
// with CSS transforms: the SVG is laid out once and never re-rendered to move it.
export class PanZoom {
  scale = 1;
  x = 0;
  y = 0;
  /** True right after a drag, so the click that ends it does not select anything. */
  dragged = false;
  private start: { x: number; y: number; px: number; py: number } | null = null;

  constructor(private viewport: HTMLElement, private content: () => Element | null) {
    viewport.addEventListener('wheel', e => this.onWheel(e), { passive: false });
    viewport.addEventListener('mousedown', e => this.onDown(e));
    // move/up on the window: a drag may leave the viewport
    this.onMove = this.onMove.bind(this);
    this.onUp = this.onUp.bind(this);
  }

  apply(): void {
    const el = this.content() as HTMLElement | SVGElement | null;
    if (el) {
      el.style.transformOrigin = '0 0';
      el.style.transform = `translate(${this.x}px, ${this.y}px) scale(${this.scale})`;
    }
  }

  /** Scale so the whole drawing fits (never above 1:1), centred horizontally, top first.
   * A long chain (an unrolled RNN) would shrink to a hairline: its scale stops at 0.5
   * (if its width allows), and the rest is reached by dragging. */
  fit(width: number, height: number): void {
    const vw = this.viewport.clientWidth || 800;
    const vh = this.viewport.clientHeight || 500;
    const all = Math.min(1, vw / Math.max(width, 1), vh / Math.max(height, 1));
    this.scale = Math.max(all, Math.min(0.5, vw / Math.max(width, 1)));
    this.x = Math.max(0, (vw - width * this.scale) / 2);
    this.y = 0;
    this.apply();
  }

  zoomBy(factor: number, cx?: number, cy?: number): void {
    const px = cx ?? this.viewport.clientWidth / 2;
    const py = cy ?? this.viewport.clientHeight / 2;
    const next = Math.min(8, Math.max(0.05, this.scale * factor));
    // keep the point under the cursor where it is
    this.x = px - ((px - this.x) * next) / this.scale;
    this.y = py - ((py - this.y) * next) / this.scale;
    this.scale = next;
    this.apply();
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const r = this.viewport.getBoundingClientRect();
    this.zoomBy(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
  }

  private onDown(e: MouseEvent): void {
    if (e.button !== 0) {
      return;
    }
    this.dragged = false;
    this.start = { x: e.clientX, y: e.clientY, px: this.x, py: this.y };
    window.addEventListener('mousemove', this.onMove);
    window.addEventListener('mouseup', this.onUp);
  }

  private onMove(e: MouseEvent): void {
    if (!this.start) {
      return;
    }
    const dx = e.clientX - this.start.x;
    const dy = e.clientY - this.start.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) {
      this.dragged = true;
    }
    if (this.dragged) {
      this.x = this.start.px + dx;
      this.y = this.start.py + dy;
      this.apply();
    }
  }

  private onUp(): void {
    this.start = null;
    window.removeEventListener('mousemove', this.onMove);
    window.removeEventListener('mouseup', this.onUp);
  }

  dispose(): void {
    this.onUp();
  }
}
