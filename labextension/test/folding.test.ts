import { describe, expect, it } from 'vitest';

import { Folding, countBoxes, initialCollapse, scopeAncestors } from '../src/folding';
import { small, unrolled } from './fixtures';

describe('folding', () => {
  it('lists the ancestors of a scope, outermost first', () => {
    expect(scopeAncestors('a/b/c')).toEqual(['a', 'a/b', 'a/b/c']);
    expect(scopeAncestors('')).toEqual([]);
  });

  it('folds ops into their outermost collapsed scope', () => {
    const f = new Folding(unrolled(2, 3), ['rnn/step_1', 'rnn/step_1/cell']);
    expect(f.box('rnn/step_1/cell/op2')).toBe('rnn/step_1/');
    expect(f.box('rnn/step_0/cell/op2')).toBe('rnn/step_0/cell/op2');
    expect(f.isOpen('rnn/step_0/cell')).toBe(true);
    expect(f.isOpen('rnn/step_1/cell')).toBe(false);
  });

  it('keeps small graphs expanded', () => {
    expect(initialCollapse(small())).toEqual([]);
  });

  it('follows the export\'s collapse hint', () => {
    const exp = small();
    exp.view = { collapse: 0, selected_run: 0, step: null };
    expect(initialCollapse(exp)).toEqual(['layer1']);
  });

  it('starts a 1,200-op unrolled graph collapsed to at most 300 boxes, as deep as fits', () => {
    const exp = unrolled(100, 12); // 1,200 ops
    const collapsed = initialCollapse(exp, 300);
    // all open: 1,200 boxes; folding each rnn/step_k/cell (depth 3) gives 100 boxes,
    // the deepest level that fits (folding depth 2 gives 100 too, but shows less)
    expect(countBoxes(exp, [])).toBe(1200);
    expect(countBoxes(exp, collapsed)).toBe(100);
    expect(collapsed).toHaveLength(100);
    expect(collapsed.every(p => /^rnn\/step_\d+\/cell$/.test(p))).toBe(true);
  });
});
