/** A run's verdict and exit code (DESIGN.md), decided from its findings: pure. */
import { SEVERITY_RANK, type Severity } from '../checks/check.js';
import type { Finding } from './finding.js';
import type { RollForward } from '../ledger/rollforward.js';

export type Verdict = 'RECONCILED' | 'BREAKS' | 'INCOMPLETE';
export type FailOn = Severity | 'never';
export const FAIL_ON: readonly FailOn[] = ['error', 'warning', 'info', 'never'];

/** Findings that count against a run: not accepted, at or above `threshold`. */
export function failing(findings: readonly Pick<Finding, 'severity' | 'state'>[], threshold: Severity): number {
  return findings.filter((f) => f.state !== 'accepted' && SEVERITY_RANK[f.severity] >= SEVERITY_RANK[threshold]).length;
}

/**
 * INCOMPLETE when the sync did not complete or a check could not run (zero findings over
 * missing data proves nothing); BREAKS when an error or warning is open or a roll-forward does
 * not close; RECONCILED otherwise.
 */
export function verdictOf(input: {
  complete: boolean;
  findings: readonly Pick<Finding, 'severity' | 'state'>[];
  rollForward: readonly RollForward[];
}): Verdict {
  if (!input.complete) return 'INCOMPLETE';
  if (failing(input.findings, 'warning') > 0 || input.rollForward.some((r) => r.differenceCents !== 0)) return 'BREAKS';
  return 'RECONCILED';
}

/** 2: the run could not complete; 1: open findings at or above --fail-on; 0 otherwise. */
export function exitCodeOf(
  verdict: Verdict,
  findings: readonly Pick<Finding, 'severity' | 'state'>[],
  rollForward: readonly RollForward[],
  failOn: FailOn,
): 0 | 1 | 2 {
  if (verdict === 'INCOMPLETE') return 2;
  if (failOn === 'never') return 0;
  // A roll-forward that does not close is a money break: it counts as an error.
  const rollForwardBreak = rollForward.some((r) => r.differenceCents !== 0) ? 1 : 0;
  return failing(findings, failOn) + rollForwardBreak > 0 ? 1 : 0;
}
