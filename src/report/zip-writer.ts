/**
 * The workbook's zip, written as its parts come. exceljs's streaming writer builds an archiver
 * for it, whose pipeline moved each sheet 16 KB at a time through four streams and a CRC-32
 * computed in JavaScript, on the report's own thread, and could not keep up with the rows: the
 * report waited for it for seconds (docs/performance.md). Here each part is deflated by zlib on
 * libuv's threads, handed everything the sheet wrote since the last turn of the event loop in one
 * piece, its CRC-32 taken by zlib too, and written straight into the file. Parts are written in
 * the order they were appended, every entry stamped with one instant, so that the same run
 * written twice is the same bytes.
 *
 * It writes what exceljs asks of its zip (append a text, a buffer or a stream; finalize; an
 * 'error' event), deflated at zlib's best speed as archiver did, with a data descriptor after
 * each part (its size is known only at its end). ZIP64 is not written: a part or the file past
 * 4 GiB is an error that says so (a sheet holds at most 1,048,576 rows; the largest report
 * measured wrote 572 MB of XML into one part).
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { constants, crc32, createDeflateRaw, type DeflateRaw } from 'node:zlib';

/** What exceljs appends: a part's text or bytes, or the stream a sheet is written into (its StreamBuf, or any readable stream). */
export type ZipSource = string | Buffer | { pipe(destination: Writable): unknown };

/** Deflated output is taken from zlib in pieces of this size (its default, 16 KB, cost a turn of the event loop each). */
const OUTPUT_PIECE = 1 << 20;
/** Beyond this, a 32-bit field of the zip cannot hold a size or an offset. */
const ZIP32_LIMIT = 0xffff_ffff;
/** Bytes appended but not yet deflated above which {@link ZipWriter.drained} waits, and below which it lets go. */
const HIGH_WATER = 8 << 20;
const LOW_WATER = 2 << 20;

interface Part {
  name: Buffer;
  /** General purpose flags: a data descriptor follows; and the name is UTF-8, where it is not ASCII (as archiver marked it). */
  flags: number;
  /** Appended, not yet handed to zlib. */
  chunks: Buffer[];
  ended: boolean;
}

/** The part being deflated: its zlib stream, what went in and came out so far, and whether a piece is in zlib's hands. */
interface Current {
  part: Part;
  deflate: DeflateRaw;
  crc: number;
  size: number;
  compressed: number;
  offset: number;
  busy: boolean;
}

interface Written {
  name: Buffer;
  flags: number;
  crc: number;
  size: number;
  compressed: number;
  offset: number;
}

/** An instant as a zip holds it: time, then date, in UTC to two seconds, from 1980 (the earliest a zip can say) to 2107. */
function dosTime(at: Date): Buffer {
  const year = at.getUTCFullYear();
  const stamp = Buffer.alloc(4);
  if (year < 1980) {
    stamp.writeUInt16LE((1 << 5) | 1, 2); // 1980-01-01 00:00:00
    return stamp;
  }
  stamp.writeUInt16LE((at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2), 0);
  stamp.writeUInt16LE(((Math.min(year, 2107) - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(), 2);
  return stamp;
}

export class ZipWriter extends EventEmitter {
  readonly #out: Writable;
  /** The entries' time and date, as a zip holds them (UTC, to two seconds). */
  readonly #stamp: Buffer;
  readonly #parts: Part[] = [];
  readonly #written: Written[] = [];
  /** Bytes appended and not yet deflated: what the writer of the rows waits on. */
  #pending = 0;
  #offset = 0;
  #finalizing = false;
  #failure: Error | undefined;
  #current: Current | undefined;
  #waiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  constructor(out: Writable, at: Date) {
    super();
    this.#out = out;
    this.#stamp = dosTime(at);
    out.once('error', (error: Error) => this.#fail(error));
  }

  /** Adds a part named `name` (a leading slash dropped, as archiver drops it); a stream's part ends when the stream does. */
  append(source: ZipSource, { name }: { name: string }): this {
    const bytes = Buffer.from(name.replace(/^\/+/, ''), 'utf8');
    const flags = bytes.some((byte) => byte > 0x7f) ? 0x0808 : 0x0008;
    const part: Part = { name: bytes, flags, chunks: [], ended: false };
    this.#parts.push(part);
    if (typeof source === 'string' || Buffer.isBuffer(source)) {
      this.#take(part, Buffer.from(source));
      part.ended = true;
    } else {
      // Taken as it comes, never refused: how far the zip is behind is what drained() tells.
      source.pipe(
        new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            this.#take(part, chunk);
            done();
          },
          final: (done) => {
            part.ended = true;
            this.#advance();
            done();
          },
        }),
      );
    }
    this.#advance();
    return this;
  }

  /** Writes the central directory once every part appended is written, then ends the file. */
  finalize(): void {
    // A failure before anyone listened (exceljs listens only now) is told now.
    if (this.#failure) {
      const failure = this.#failure;
      process.nextTick(() => this.emit('error', failure));
      return;
    }
    this.#finalizing = true;
    this.#advance();
  }

  /** Resolves at once while little is waiting to be deflated; else once most of it is (rejects if the file fails). */
  drained(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#pending <= HIGH_WATER) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #take(part: Part, chunk: Buffer): void {
    if (chunk.length === 0) return;
    part.chunks.push(chunk);
    this.#pending += chunk.length;
    this.#advance();
  }

  /** Moves the writing on as far as it can: the next part started, the next piece handed to zlib, a finished part closed. */
  #advance(): void {
    if (this.#failure) return;
    try {
      if (this.#current === undefined) {
        const part = this.#parts.shift();
        if (part === undefined) {
          if (this.#finalizing) this.#finish();
          return;
        }
        this.#start(part);
      }
      this.#feed();
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  #start(part: Part): void {
    const offset = this.#offset;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    header.writeUInt16LE(part.flags, 6);
    header.writeUInt16LE(8, 8); // deflated
    this.#stamp.copy(header, 10);
    header.writeUInt16LE(part.name.length, 26);
    this.#write(Buffer.concat([header, part.name]));
    const deflate = createDeflateRaw({ level: constants.Z_BEST_SPEED, chunkSize: OUTPUT_PIECE });
    const current: Current = { part, deflate, crc: 0, size: 0, compressed: 0, offset, busy: false };
    this.#current = current;
    deflate.on('data', (piece: Buffer) => {
      current.compressed += piece.length;
      if (!this.#write(piece)) {
        deflate.pause();
        this.#out.once('drain', () => deflate.resume());
      }
    });
    deflate.once('end', () => {
      try {
        this.#close(current);
      } catch (error) {
        this.#fail(error as Error);
        return;
      }
      this.#current = undefined;
      this.#advance();
    });
    deflate.once('error', (error) => this.#fail(error));
  }

  /** Hands zlib everything the part has waiting, as one piece, when zlib has finished the one before. */
  #feed(): void {
    const current = this.#current;
    if (current === undefined || current.busy) return;
    const { part, deflate } = current;
    if (part.chunks.length > 0) {
      const piece = part.chunks.length === 1 ? (part.chunks[0] as Buffer) : Buffer.concat(part.chunks);
      part.chunks.length = 0;
      current.crc = crc32(piece, current.crc);
      current.size += piece.length;
      current.busy = true;
      deflate.write(piece, () => {
        current.busy = false;
        this.#pending -= piece.length;
        this.#letWaitersGo();
        this.#advance();
      });
    } else if (part.ended && !deflate.writableEnded) {
      deflate.end();
    }
  }

  /** The part's data descriptor, and its entry kept for the central directory. */
  #close(current: Current): void {
    const { part, crc, size, compressed, offset } = current;
    if (size > ZIP32_LIMIT || compressed > ZIP32_LIMIT || this.#offset + compressed > ZIP32_LIMIT)
      throw new Error(`the workbook's part ${part.name.toString()} passed 4 GiB, which needs ZIP64, not written here`);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    this.#write(descriptor);
    this.#written.push({ name: part.name, flags: part.flags, crc, size, compressed, offset });
  }

  /** The central directory and its end, then the file is ended. */
  #finish(): void {
    const start = this.#offset;
    if (this.#written.length > 0xffff) throw new Error('the workbook has more than 65,535 parts, which needs ZIP64');
    for (const entry of this.#written) {
      const record = Buffer.alloc(46);
      record.writeUInt32LE(0x02014b50, 0);
      record.writeUInt16LE(0x032d, 4); // made by: Unix, zip 4.5 (as archiver wrote)
      record.writeUInt16LE(20, 6);
      record.writeUInt16LE(entry.flags, 8);
      record.writeUInt16LE(8, 10);
      this.#stamp.copy(record, 12);
      record.writeUInt32LE(entry.crc, 16);
      record.writeUInt32LE(entry.compressed, 20);
      record.writeUInt32LE(entry.size, 24);
      record.writeUInt16LE(entry.name.length, 28);
      record.writeUInt32LE(((0o100644 << 16) | 0x20) >>> 0, 38); // a regular file, rw-r--r--; archive
      record.writeUInt32LE(entry.offset, 42);
      this.#write(Buffer.concat([record, entry.name]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#written.length, 8);
    end.writeUInt16LE(this.#written.length, 10);
    end.writeUInt32LE(this.#offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.#write(end);
    this.#finalizing = false;
    this.#out.end();
  }

  #write(bytes: Buffer): boolean {
    this.#offset += bytes.length;
    return this.#out.write(bytes);
  }

  #letWaitersGo(): void {
    if (this.#pending > LOW_WATER) return;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve();
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#current?.deflate.destroy();
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }
}
