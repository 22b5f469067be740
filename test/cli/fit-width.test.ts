import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnsThatFit, wrapLine } from '../../src/fit-width.js';

describe('text for a narrow terminal', () => {
  it('wraps between words only: every line fits unless one word is wider, and the words stay whole and in order', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9.,:()−-]{1,30}$/);
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 20, max: 120 }),
        (words, width) => {
          const lines = wrapLine(words.join(' '), width);
          for (const line of lines) if (line.trim().includes(' ')) expect(line.length).toBeLessThanOrEqual(width);
          expect(
            lines
              .map((line) => line.trim())
              .join(' ')
              .split(' '),
          ).toEqual(words);
        },
      ),
    );
    expect(wrapLine('liability USD: opening 2,533.06 = 1,234.56; cards hold 2,533.06 (closes)', 40)).toEqual([
      'liability USD: opening 2,533.06 =',
      '  1,234.56; cards hold 2,533.06 (closes)',
    ]);
  });

  it('drops the columns that matter least until a table fits, and none without a width', () => {
    const header = ['run', 'verdict', 'cards', 'why'];
    const rows = [['1', 'RECONCILED', '1000000', 'a reason that is long']];
    expect(columnsThatFit(header, rows, undefined, ['cards'])).toEqual([0, 1, 2, 3]);
    expect(columnsThatFit(header, rows, 40, ['cards', 'why'])).toEqual([0, 1, 3]);
  });
});
