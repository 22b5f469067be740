/** The Checks sheet: every check of the catalogue, what it looks for, and what it found this run. */
import { CATALOGUE } from '../../checks/index.js';
import { summaryOf, type CheckRunRow } from '../../findings/store.js';
import type { SheetSpec } from '../xlsx-writer.js';

/** The Checks sheet: the catalogue, with the findings of each check in this run. */
export function checksSheet(run: CheckRunRow): SheetSpec {
  return {
    name: 'Checks',
    header: ['code', 'severity', 'kind', 'check', 'what it proves, and what a finding means', 'findings this run'],
    severityColumn: 1,
    // The explanation gets the page's width: a check is read as a whole, one page wide at 72 %.
    fixedWidths: { 0: 31, 1: 8, 2: 6, 3: 25, 4: 75, 5: 8 },
    printScale: 0.72,
    rows: (function* () {
      const counts = summaryOf(run).byCode;
      for (const check of CATALOGUE)
        yield [check.code, check.severity, check.lifecycle, check.title, check.description, counts[check.code] ?? 0];
    })(),
  };
}
