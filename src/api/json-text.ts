/**
 * Reading a response body exactly. JSON.parse reads numbers as doubles, so a literal such as
 * `10.000000000000000001` would become 10 and look like a clean 10.00; and re-serialising a
 * parsed record (JSON.stringify) is not the record the service sent (`__proto__` keys, escapes,
 * number spellings). One pass over the text finds the number literals a double cannot carry
 * and the source text of each record, so:
 * - such a literal becomes an {@link InexactNumber} holding its text: an amount is then a
 *   finding (not on a cent), any other number a rejected record, never a rounded value;
 * - each record keeps its raw JSON byte for byte ({@link sourceOf}).
 */

/** A JSON number literal that a double cannot carry exactly, kept as its text. */
export class InexactNumber {
  constructor(readonly literal: string) {}
  toString(): string {
    return this.literal;
  }
  toJSON(): string {
    return this.literal;
  }
}

/** The source text of parsed records: the element objects of a body's lists and its top-level objects. */
const SOURCES = new WeakMap<object, string>();

/** The JSON text a record arrived as, when it was read by {@link parseExact}. */
export function sourceOf(record: unknown): string | undefined {
  return record !== null && typeof record === 'object' ? SOURCES.get(record) : undefined;
}

/** Carries `from`'s source text over to `to` (a validated copy of the same record). */
export function keepSource<T>(from: unknown, to: T): T {
  const source = sourceOf(from);
  if (source !== undefined && to !== null && typeof to === 'object') SOURCES.set(to, source);
  return to;
}

/** The raw JSON of a record for the mirror: its source text when known, else its serialisation. */
export function rawJsonOf(record: unknown): string {
  return sourceOf(record) ?? JSON.stringify(record);
}

/** Unforgeable within this process: marks the strings that stand for inexact literals while parsing. */
const MARK = `\u0000inexact-${Math.random().toString(36).slice(2)}:`;
const ESCAPED_MARK = JSON.stringify(MARK).slice(1, -1);

/**
 * Parses a JSON body exactly (see the module's note).
 * @throws SyntaxError when the text is not JSON, as JSON.parse does.
 */
export function parseExact(text: string): unknown {
  const first = JSON.parse(text) as unknown;
  const scan = scanJson(text);
  let value = first;
  if (scan.inexact.length > 0) {
    let marked = '';
    let at = 0;
    for (const [start, end] of scan.inexact) {
      marked += `${text.slice(at, start)}"${ESCAPED_MARK}${text.slice(start, end)}"`;
      at = end;
    }
    marked += text.slice(at);
    value = JSON.parse(marked, (_key, inner: unknown) =>
      typeof inner === 'string' && inner.startsWith(MARK) ? new InexactNumber(inner.slice(MARK.length)) : inner,
    );
  }
  attachSources(value, scan.spans, text);
  return value;
}

interface Scan {
  /** [start, end) of each number literal a double cannot carry. */
  inexact: Array<[number, number]>;
  /** Path → [start, end) of each value there: '' the body, 'key' a top-level value, '[]' / 'key[]' the elements of a list. */
  spans: Map<string, Array<[number, number]>>;
}

interface Frame {
  array: boolean;
  /** The path of the values this container holds ('' for the body's own values), or null when not recorded. */
  path: string | null;
  /** In an object: the key whose value comes next (depth 1 only). */
  key: string;
  /** Where the value being read began. */
  start: number;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** One pass over valid JSON text (JSON.parse has checked it): the spans of records and of inexact numbers. */
function scanJson(text: string): Scan {
  const inexact: Array<[number, number]> = [];
  const spans = new Map<string, Array<[number, number]>>();
  const stack: Frame[] = [];
  // Whether the string read next in an object is a key.
  let expectKey = false;
  const valueStarts = (at: number): void => {
    const frame = stack.at(-1);
    if (frame) frame.start = at;
  };
  const valueEnds = (end: number): void => {
    const frame = stack.at(-1);
    const path =
      frame === undefined
        ? ''
        : frame.path === null
          ? null
          : frame.array
            ? `${frame.path}[]`
            : frame.path === ''
              ? frame.key
              : null;
    if (path === null) return;
    const start = frame === undefined ? 0 : frame.start;
    const list = spans.get(path);
    if (list) list.push([start, end]);
    else spans.set(path, [[start, end]]);
  };
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = endOfString(text, i);
      const frame = stack.at(-1);
      if (expectKey && frame !== undefined) {
        // Only the body's own keys name paths; deeper keys are never parsed.
        if (stack.length === 1) frame.key = JSON.parse(text.slice(i, end)) as string;
        expectKey = false;
      } else if (stack.length <= 2) {
        valueStarts(i);
        valueEnds(end);
      }
      i = end;
    } else if (c === 58 /* : */ || c === 32 || c === 10 || c === 13 || c === 9) {
      i += 1;
    } else if (c === 44 /* , */) {
      expectKey = stack[stack.length - 1]?.array === false;
      i += 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (stack.length <= 2) valueStarts(i);
      const parent = stack.at(-1);
      // A duplicate key restarts its list, as JSON.parse keeps the last value.
      const path = parent === undefined ? '' : parent.path === '' && !parent.array ? parent.key : null;
      if (c === 91 && path !== null) spans.delete(`${path}[]`);
      stack.push({ array: c === 91, path: stack.length < 2 ? path : null, key: '', start: i });
      expectKey = c === 123;
      i += 1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
      i += 1;
      if (stack.length <= 2) valueEnds(i);
      expectKey = false;
    } else if (c === 116 /* t */ || c === 102 /* f */ || c === 110 /* n */) {
      const end = i + (c === 102 ? 5 : 4);
      if (stack.length <= 2) {
        valueStarts(i);
        valueEnds(end);
      }
      i = end;
    } else {
      // A number: JSON allows only -, digits, '.', e, E and + in one.
      let end = i + 1;
      for (; end < length; end += 1) {
        const d = text.charCodeAt(end);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      // Up to 15 significant digits without an exponent, every decimal survives a double.
      if (end - i > 15 || hasExponent(text, i, end)) {
        if (!exactAsDouble(text.slice(i, end))) inexact.push([i, end]);
      }
      if (stack.length <= 2) {
        valueStarts(i);
        valueEnds(end);
      }
      i = end;
    }
  }
  return { inexact, spans };
}

/** Where the string literal opening at `start` ends (just past its closing quote). */
function endOfString(text: string, start: number): number {
  let end = start + 1;
  for (;;) {
    end = text.indexOf('"', end);
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end + 1;
    end += 1;
  }
}

function hasExponent(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 101 || c === 69) return true;
  }
  return false;
}

/** Whether a JSON number literal denotes exactly the value of its nearest double. */
export function exactAsDouble(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return false;
  return decimalKey(literal) === decimalKey(String(value));
}

/** A decimal's digits without leading or trailing zeros, and where the point sits: equal keys, equal values. */
function decimalKey(literal: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!match) return literal;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return '0';
  // The point's place relative to the first significant digit.
  const point = BigInt(exponent) + BigInt(whole.length) - BigInt(leading);
  return `${sign}${significant}e${point}`;
}

/** Records each span's text against the parsed object standing there, by the same path. */
function attachSources(value: unknown, spans: Map<string, Array<[number, number]>>, text: string): void {
  const attach = (target: unknown, span: [number, number] | undefined): void => {
    if (span !== undefined && target !== null && typeof target === 'object' && !Array.isArray(target))
      SOURCES.set(target, text.slice(span[0], span[1]));
  };
  const list = (target: unknown, path: string): void => {
    const found = spans.get(path);
    if (!Array.isArray(target) || found === undefined || found.length !== target.length) return;
    for (const [index, element] of target.entries()) attach(element, found[index]);
  };
  attach(value, [0, text.length]);
  if (Array.isArray(value)) {
    list(value, '[]');
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    attach(inner, spans.get(key)?.at(-1));
    list(inner, `${key}[]`);
  }
}
