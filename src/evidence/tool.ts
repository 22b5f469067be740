/**
 * Which tool made a manifest: its name and version (package.json) and a digest of its code (the
 * running build's modules and the mirror's migrations, in path order), so a night can be tied to
 * the exact code that computed it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../hash.js';

export interface ToolIdentity {
  name: string;
  version: string;
  /** SHA-256 over every module of the running build and every migration: path, then content. */
  code: string;
}

let identity: ToolIdentity | undefined;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.(js|ts|sql)$/.test(entry.name)) yield path;
  }
}

/** The running tool, computed once per process. */
export function toolIdentity(): ToolIdentity {
  if (identity) return identity;
  // This module lives in <root>/dist/evidence/ (the build) or <root>/src/evidence/ (from source).
  const code = dirname(dirname(fileURLToPath(import.meta.url)));
  const root = dirname(code);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const hash = [];
  for (const folder of [code, join(root, 'drizzle')])
    for (const file of files(folder)) hash.push(`${relative(root, file)}\n${sha256Hex(readFileSync(file))}`);
  identity = { name: pkg.name, version: pkg.version, code: sha256Hex(hash.join('\n')) };
  return identity;
}
