// The labels of the demo workbook's Summary sheet (its first column, top to bottom), which
// docs/summary.png shows: scripts/summary-image.sh writes them to docs/summary.txt beside the
// picture, and test/docs/summary-image.test.ts holds the picture to the workbook the demo makes
// now, so the README's picture never lags a new line of the Summary.
//   node scripts/summary-labels.mjs reports/demo/ledger-recon-….xlsx
import { pathToFileURL } from 'node:url';
import ExcelJS from 'exceljs';

/** The Summary's labels: each row's first cell that holds text, figures and dates left out. */
export async function summaryLabels(workbookPath) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(workbookPath);
  const summary = workbook.getWorksheet('Summary');
  if (!summary) throw new Error(`${workbookPath} has no Summary sheet`);
  const labels = [];
  summary.eachRow((row) => {
    const value = row.getCell(1).value;
    const text =
      typeof value === 'string'
        ? value
        : value && typeof value === 'object' && 'richText' in value
          ? value.richText.map((r) => r.text).join('')
          : undefined;
    // A label: not a title carrying the night's date or figures, nor a check's code (which
    // codes a night finds, and in which order of money, is the night's, not the sheet's).
    if (text !== undefined && !/\d/.test(text) && !/^[A-Z]{2,}_[A-Z_]+$/.test(text.trim())) labels.push(text.trim());
  });
  return labels;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${(await summaryLabels(process.argv[2])).join('\n')}\n`);
}
