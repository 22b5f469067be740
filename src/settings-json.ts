/**
 * A settings file's JSON checked against its zod schema (the liability's, the exception SLA
 * rules'): what is wrong is one message naming where (`programs.P.breakageRate`), and what it must be.
 */
import type { z } from 'zod';

/**
 * The file's settings, or the reason they are refused, thrown as `refusal`.
 * @param where how a path into the file is named (`rule 0.severity`); 'the file' for its top.
 */
export function settingsJson<S extends z.ZodType>(
  schema: S,
  text: string,
  refusal: new (message: string) => Error,
  where: (path: string) => string = (path) => path,
): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new refusal(`not JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? where(issue.path.map(String).join('.')) : 'the file';
  // A record's key that is wrong carries what it must be in its own issues (zod's invalid_key).
  const inner = (issue as { issues?: ReadonlyArray<{ message: string }> } | undefined)?.issues?.[0]?.message;
  throw new refusal(`${at}: ${inner ?? issue?.message ?? 'not valid'}`);
}
