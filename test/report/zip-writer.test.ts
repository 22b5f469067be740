/**
 * The workbook's zip (src/report/zip-writer.ts): read back by JSZip with every CRC checked, the
 * same parts written the same bytes however they arrive in pieces, the wait for deflating bounded
 * and let go, and a failing file told.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import JSZip from 'jszip';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZipWriter } from '../../src/report/zip-writer.js';
import { runs } from '../support/property.js';
import { testDate } from '../support/test-clock.js';

/** The stream exceljs writes a sheet into and appends to its zip. */
const StreamBuf = createRequire(import.meta.url)('exceljs/lib/utils/stream-buf.js') as new (options: {
  bufSize: number;
  batch: boolean;
}) => { write(data: string | Buffer): unknown; end(): void; pipe(destination: Writable): unknown };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-zip-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface PartIn {
  name: string;
  /** The part's bytes, as the pieces they arrive in. */
  pieces: Buffer[];
  /** Appended as a stream (else as one buffer). */
  streamed: boolean;
}

/** Writes `parts` into a new file and returns its bytes. */
async function zipped(parts: readonly PartIn[], at: Date, file = join(dir, `${Math.random()}.zip`)): Promise<Buffer> {
  const out = createWriteStream(file, { flags: 'wx' });
  const zip = new ZipWriter(out, at);
  for (const part of parts)
    zip.append(part.streamed ? Readable.from(part.pieces) : Buffer.concat(part.pieces), { name: part.name });
  zip.finalize();
  await once(out, 'close');
  return readFileSync(file);
}

/** Each part's bytes, read back with CRC-32 checked, and each entry's time. */
async function unzipped(bytes: Buffer): Promise<{ parts: Map<string, Buffer>; dates: Date[] }> {
  const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
  const parts = new Map<string, Buffer>();
  const dates: Date[] = [];
  for (const entry of Object.values(zip.files)) {
    parts.set(entry.name, await entry.async('nodebuffer'));
    dates.push(entry.date);
  }
  return { parts, dates };
}

/** Bytes that compress (rows of XML, repeated up to a few hundred KB) or do not (random), to be cut into pieces. */
const contents = fc.oneof(
  fc
    .tuple(
      fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 20 }),
      fc.integer({ min: 1, max: 3_000 }),
    )
    .map(([rows, times]) =>
      Buffer.from(
        rows
          .map((row) => `<row><c t="inlineStr"><is><t>${row}</t></is></c></row>`)
          .join('')
          .repeat(times),
      ),
    ),
  fc.uint8Array({ maxLength: 70_000, size: 'max' }).map((bytes) => Buffer.from(bytes)),
);

/** `bytes` cut at the given points. */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to > from) pieces.push(bytes.subarray(from, to));
    from = Math.max(from, to);
  }
  return pieces;
}

describe('the workbook zip', () => {
  it('holds every part as written, CRC-checked, named and timed, the same bytes however the parts arrive in pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            name: fc.oneof(
              fc.constantFrom('xl/worksheets/sheet1.xml', '/_rels/.rels'),
              fc.string({ minLength: 1, maxLength: 12 }).map((s) => `dir/${s.replace(/[/\\\0]/g, '_')}.xml`),
            ),
            bytes: contents,
            cutsA: fc.array(fc.nat(), { maxLength: 12 }),
            cutsB: fc.array(fc.nat(), { maxLength: 12 }),
            streamed: fc.boolean(),
          }),
          { minLength: 1, maxLength: 5, selector: (part) => part.name.replace(/^\/+/, '') },
        ),
        async (parts) => {
          const at = testDate();
          const a = await zipped(
            parts.map((p) => ({ name: p.name, pieces: cut(p.bytes, p.cutsA), streamed: p.streamed })),
            at,
          );
          const b = await zipped(
            parts.map((p) => ({ name: p.name, pieces: cut(p.bytes, p.cutsB), streamed: true })),
            at,
          );
          expect(a.equals(b)).toBe(true);
          const { parts: read, dates } = await unzipped(a);
          expect([...read.keys()]).toEqual(parts.map((p) => p.name.replace(/^\/+/, '')));
          for (const part of parts) expect(read.get(part.name.replace(/^\/+/, ''))?.equals(part.bytes)).toBe(true);
          // A zip's time is to two seconds; JSZip reads it as UTC.
          for (const date of dates) expect(Math.floor(date.getTime() / 2000)).toBe(Math.floor(at.getTime() / 2000));
        },
      ),
      runs(40),
    );
  });

  it('marks a name that is not ASCII as UTF-8, and stamps an instant before 1980 as 1980-01-01', async () => {
    const bytes = await zipped(
      [{ name: 'xl/€-données.xml', pieces: [Buffer.from('<x/>')], streamed: false }],
      new Date(0),
    );
    // General purpose flags of the local header: a data descriptor follows (bit 3), the name is UTF-8 (bit 11).
    expect(bytes.readUInt16LE(6)).toBe(0x0808);
    const { parts, dates } = await unzipped(bytes);
    expect([...parts.keys()]).toEqual(['xl/€-données.xml']);
    expect(dates[0]?.toISOString()).toBe('1980-01-01T00:00:00.000Z');
  });

  it("takes a sheet from exceljs's own stream, and lets the rows' writer wait only while much is left to deflate", async () => {
    const out = createWriteStream(join(dir, 'sheet.zip'), { flags: 'wx' });
    const zip = new ZipWriter(out, testDate());
    const sheet = new StreamBuf({ bufSize: 65_536, batch: true });
    zip.append(sheet, { name: '/xl/worksheets/sheet1.xml' });
    // Random bytes do not compress: 24 MB written at once is far more than the zip may hold back.
    const written = randomBytes(24 << 20);
    await zip.drained();
    sheet.write(written);
    let drained = false;
    const waited = zip.drained().then(() => {
      drained = true;
    });
    expect(drained).toBe(false);
    await waited;
    sheet.end();
    zip.append('<Types/>', { name: '[Content_Types].xml' });
    zip.finalize();
    await once(out, 'close');
    const { parts } = await unzipped(readFileSync(join(dir, 'sheet.zip')));
    expect(parts.get('xl/worksheets/sheet1.xml')?.equals(written)).toBe(true);
    expect(parts.get('[Content_Types].xml')?.toString()).toBe('<Types/>');
  });

  it('tells a file that fails: the wait for deflating ends with its error, and so does finalize', async () => {
    const failure = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const out = new Writable({ write: (_chunk, _encoding, done) => done(failure) });
    const zip = new ZipWriter(out, testDate());
    const sheet = new StreamBuf({ bufSize: 65_536, batch: true });
    zip.append(sheet, { name: 'xl/worksheets/sheet1.xml' });
    sheet.write(randomBytes(24 << 20));
    await expect(zip.drained()).rejects.toMatchObject({ code: 'ENOSPC' });
    const told = once(zip, 'error');
    zip.finalize();
    await expect(told).resolves.toEqual([failure]);
  });
});
