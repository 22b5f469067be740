/**
 * Exception SLAs: how long a break may stay open. Rules by severity, amount and age, in order:
 * the first rule of the finding's severity whose amount or age threshold is met (or that has
 * neither) sets its due time, counted from when it was first seen. An accepted finding has none.
 * A finding is overdue when its due time is at or before the run's as-of instant. Pure; the run
 * records the rules in force (its summary's `sla`), so every output of a run states the same due
 * times. docs/checking.md, "Exception SLAs", states the defaults.
 */
import { z } from 'zod';
import { settingsJson } from '../settings-json.js';
import { SEVERITIES, type Severity } from '../checks/check.js';
import { decimalTextCents, formatCents } from '../money.js';

/** What a due time reads of a finding (finding.ts's Finding has it). */
export interface SlaFinding {
  severity: Severity;
  currency: string | null;
  stakeCents: number;
  ageDays: number;
  state: string;
  firstSeenAtMs: number;
}

/** One rule: a severity, optional thresholds (money at stake per currency, age in days), and the time allowed. */
export interface SlaRule {
  severity: Severity;
  /** Met when the finding puts at least this much of its currency at stake (cents per currency). */
  amountAtLeast?: Readonly<Record<string, number>>;
  /** Met when the finding is at least this many days old. */
  ageAtLeastDays?: number;
  /** Hours from first seen to due. */
  dueWithinHours: number;
}

const HOUR_MS = 3_600_000;

/**
 * The defaults: an error putting 1,000.00 or more at stake, or a week old, is due within a day;
 * another error within three days; a warning of 1,000.00 or more within three days, another
 * within a week; information within thirty days.
 */
const THOUSAND = { USD: 100_000, EUR: 100_000, GBP: 100_000, INR: 100_000 };
export const DEFAULT_SLA_RULES: readonly SlaRule[] = [
  { severity: 'error', amountAtLeast: THOUSAND, ageAtLeastDays: 7, dueWithinHours: 24 },
  { severity: 'error', dueWithinHours: 72 },
  { severity: 'warning', amountAtLeast: THOUSAND, dueWithinHours: 72 },
  { severity: 'warning', dueWithinHours: 168 },
  { severity: 'info', dueWithinHours: 720 },
];

/** A rule's thresholds: none (it applies to every finding of its severity), or one of them met. */
function applies(rule: SlaRule, finding: SlaFinding): boolean {
  if (rule.severity !== finding.severity) return false;
  const amount = rule.amountAtLeast;
  const age = rule.ageAtLeastDays;
  if (amount === undefined && age === undefined) return true;
  const threshold = finding.currency === null ? undefined : amount?.[finding.currency];
  return (threshold !== undefined && finding.stakeCents >= threshold) || (age !== undefined && finding.ageDays >= age);
}

/** When a finding is due (epoch ms), by the first rule that applies; null when accepted or no rule applies. */
export function dueOf(finding: SlaFinding, rules: readonly SlaRule[]): number | null {
  if (finding.state === 'accepted') return null;
  const rule = rules.find((r) => applies(r, finding));
  return rule === undefined ? null : finding.firstSeenAtMs + rule.dueWithinHours * HOUR_MS;
}

/** Due at or before `asOfMs` (the run's as-of instant). */
export function isOverdue(dueAtMs: number | null, asOfMs: number): boolean {
  return dueAtMs !== null && dueAtMs <= asOfMs;
}

const amount = z
  .string()
  .refine((text) => decimalTextCents(text).ok, 'an amount in the currency, to the cent ("1000.00")');
const FILE = z.array(
  z
    .object({
      severity: z.enum(SEVERITIES),
      amountAtLeast: z.record(z.string().regex(/^[A-Z]{3}$/, 'a currency code ("USD")'), amount).optional(),
      ageAtLeastDays: z.number().int().min(0).optional(),
      dueWithinHours: z.number().int().min(1),
    })
    .strict(),
);

/** The rules as a settings file writes them, and as a run's summary records them. */
export type SlaRulesFile = z.infer<typeof FILE>;

/** A problem with an SLA file: where in it, and what is wrong. */
export class SlaRulesError extends Error {}

/**
 * Rules from a settings file's JSON (an array, in order: the first that applies wins).
 * @throws SlaRulesError naming the rule and key.
 */
export function parseSlaRules(text: string): SlaRule[] {
  const file = settingsJson(FILE, text, SlaRulesError, (path) => `rule ${path}`);
  return rulesOf(file);
}

/** Rules from their file form (a run's summary records them so). */
export function rulesOf(file: SlaRulesFile): SlaRule[] {
  return file.map((r) => ({
    severity: r.severity,
    ...(r.amountAtLeast !== undefined
      ? {
          amountAtLeast: Object.fromEntries(
            Object.entries(r.amountAtLeast).map(([currency, text]) => {
              const cents = decimalTextCents(text);
              if (!cents.ok) throw new SlaRulesError(`${currency} ${text}: ${cents.reason}`);
              return [currency, cents.cents];
            }),
          ),
        }
      : {}),
    ...(r.ageAtLeastDays !== undefined ? { ageAtLeastDays: r.ageAtLeastDays } : {}),
    dueWithinHours: r.dueWithinHours,
  }));
}

/** The rules in their file form: what a run's summary records. */
export function rulesFile(rules: readonly SlaRule[]): SlaRulesFile {
  return rules.map((r) => ({
    severity: r.severity,
    ...(r.amountAtLeast !== undefined
      ? {
          amountAtLeast: Object.fromEntries(
            Object.entries(r.amountAtLeast).map(([currency, cents]) => [currency, formatCents(cents)]),
          ),
        }
      : {}),
    ...(r.ageAtLeastDays !== undefined ? { ageAtLeastDays: r.ageAtLeastDays } : {}),
    dueWithinHours: r.dueWithinHours,
  }));
}

/** A run's SLA: its rules (its summary's, else the defaults) and the instant overdue is judged at (its start). */
export interface RunSla {
  rules: readonly SlaRule[];
  asOfMs: number;
}

/** The SLA of a run, from its summary. */
export function slaOfRun(summary: { sla?: SlaRulesFile; startedAt: string }): RunSla {
  return { rules: summary.sla ? rulesOf(summary.sla) : DEFAULT_SLA_RULES, asOfMs: Date.parse(summary.startedAt) };
}
