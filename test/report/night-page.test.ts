/**
 * The night's page (src/report/night-page.ts) holds whatever text a service or a setting gives it
 * as text: a merchant's name, a record's ID or a program that reads as markup never becomes markup,
 * and the view the charts draw from is read back whole from its script element.
 */
import { describe, expect, it } from 'vitest';
import { nightPage } from '../../src/report/night-page.js';
import { HOSTILE_VIEW as view } from '../support/pages.js';

describe("the night's page", () => {
  const page = nightPage(view);

  it('writes text from a service or a setting as text, never as markup', () => {
    // Three script elements, all the page's own: the view, Chart.js and the drawing.
    expect(page.match(/<script/g)).toHaveLength(3);
    expect(page).not.toContain('<img');
    expect(page).not.toContain('</script><script>alert');
    expect(page).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;');
    // No request can leave it: the policy allows none, and no address is written but as text.
    expect(page).toContain(`content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"`);
  });

  it('keeps the view the charts draw whole, and states its figures grouped, the overdue first', () => {
    const json = /<script type="application\/json" id="night-view">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
    expect(JSON.parse(json)).toEqual(view);
    expect(page).toContain('1,234,567.89');
    expect(page).toContain('does not close by -12.00');
    // How the night's difference relates to the month so far's, as page 1 of the workbook states it.
    expect(page).toContain("= 0.00 cards − flows this month, 5.00 service − cards, -17.00 between the month's opening");
    expect(page.indexOf('Overdue: 1 finding past their due time')).toBeLessThan(page.indexOf('Per currency'));
    expect(page).toContain('This is the first night on record.');
    expect(page).toContain('No open finding puts money at stake.');
  });
});
