// Which drawn box each op belongs to when some name scopes are collapsed.
// A collapsed scope is drawn as one box keyed "path/" (an op name never ends with "/",
// so the op `c` of scope `c/` does not fold onto itself), placed in the scope's parent.
// The outermost collapsed ancestor wins: collapsing `a` hides whatever `a/b` shows.
import { GraphExport } from './model';

export function scopeAncestors(scope: string): string[] {
  if (!scope) {
    return [];
  }
  const parts = scope.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

export class Folding {
  readonly collapsed: Set<string>;
  private boxOf = new Map<string, string>();

  constructor(exp: GraphExport, collapsed: Iterable<string>) {
    this.collapsed = new Set(collapsed);
    for (const n of exp.nodes) {
      const outer = scopeAncestors(n.scope).find(p => this.collapsed.has(p));
      if (outer !== undefined) {
        this.boxOf.set(n.name, outer + '/');
      }
    }
  }

  /** The box drawn for op `name`: itself, or its outermost collapsed scope + "/". */
  box(name: string): string {
    return this.boxOf.get(name) ?? name;
  }

  /** Is `path` drawn as a cluster (neither collapsed nor inside a collapsed scope)? */
  isOpen(path: string): boolean {
    return !scopeAncestors(path).some(p => this.collapsed.has(p));
  }
}

/** The scopes of depth `level + 1`: collapsing them folds every scope deeper than
 * `level` (the export's `view.collapse` meaning). */
export function scopesAtDepth(exp: GraphExport, level: number): string[] {
  return exp.scopes.filter(s => s.depth === level + 1).map(s => s.path);
}

export function countBoxes(exp: GraphExport, collapsed: Iterable<string>): number {
  const f = new Folding(exp, collapsed);
  return new Set(exp.nodes.map(n => f.box(n.name))).size;
}

/** The scopes a view starts with collapsed. The export's own depth hint
 * (`view.collapse`) wins; otherwise the scopes the export asks to start folded
 * (`view.folded`: gradients, the optimizer's updates, library internals of a big
 * graph), and if that still draws more than `maxBoxes` boxes (an unrolled LSTM has
 * thousands of ops) the deepest level that fits, so Graphviz lays out a few hundred
 * boxes, not thousands, and the page stays responsive. */
export function initialCollapse(exp: GraphExport, maxBoxes = 300): string[] {
  const hint = exp.view?.collapse;
  if (typeof hint === 'number') {
    return scopesAtDepth(exp, hint);
  }
  const asked = exp.view?.folded;
  const folded = Array.isArray(asked) ? asked.filter(p => typeof p === 'string') : [];
  if (countBoxes(exp, folded) <= maxBoxes) {
    return folded;
  }
  const deepest = Math.max(0, ...exp.scopes.map(s => s.depth));
  let best = folded.concat(scopesAtDepth(exp, 0));
  for (let level = 1; level < deepest; level++) {
    const candidate = folded.concat(scopesAtDepth(exp, level));
    if (countBoxes(exp, candidate) > maxBoxes) {
      break;
    }
    best = candidate;
  }
  return best;
}
