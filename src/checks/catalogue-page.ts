/**
 * The catalogue's page for people, docs/catalogue.md, generated from the checks' own metadata
 * (`npm run docs:catalogue` writes it; a test fails when the page and the registry part).
 */
import { CATALOGUE } from './index.js';

const INTRO = `# The check catalogue

Codes are stable: reports, tests and your own tooling can key on them. **error**: money or a
ledger invariant is wrong; **warning**: a process or control failed; **info**: worth knowing,
not a break. Each check is one file in \`src/checks/\`, named after its code. **kind**: a *state*
break is resolved when the records agree again; an *event* break (found from a change between
two syncs) stays open on every later night until a person accepts it.

`;

const OUTRO = `The books codes (\`BK_…\`, \`CV_USES_MISMATCH\`, \`DP_ORDER_NOT_IN_BOOKS\`, \`DP_BOOKS_AMOUNT_MISMATCH\`)
come from matching the merchant's own books against the services: they raise nothing until
books are imported (\`ledger-recon books import\`, or \`run --books DIR\`). The rules, the
tolerance, the time window and the cut-off are described in [books.md](books.md).
`;

/** A table cell: a pipe would end the cell. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The whole page, one row per code in the registry's order. */
export function cataloguePage(): string {
  const rows = CATALOGUE.map(
    (check) =>
      `| \`${check.code}\` | ${check.severity} | ${check.lifecycle} | ${cell(check.title)} | ${cell(check.description)} |`,
  );
  return `${INTRO}| code | severity | kind | in short | what it proves, and what a finding means |\n|---|---|---|---|---|\n${rows.join('\n')}\n\n${OUTRO}`;
}
