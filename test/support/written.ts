/**
 * Every byte the product wrote under some paths, as text to search: files read whole (a
 * mirror's pages, its WAL), and each part of a workbook unzipped (its cells are XML inside a
 * zip, where a plain search would never see them).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import JSZip from 'jszip';

export async function everyByteWritten(paths: readonly string[]): Promise<string> {
  const texts: string[] = [];
  const visit = async (path: string): Promise<void> => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) await visit(join(path, name));
      return;
    }
    const bytes = readFileSync(path);
    texts.push(bytes.toString('latin1'));
    if (path.endsWith('.xlsx')) {
      const zip = await JSZip.loadAsync(bytes);
      for (const part of Object.values(zip.files)) if (!part.dir) texts.push(await part.async('string'));
    }
  };
  for (const path of paths) await visit(path);
  return texts.join('\n');
}
