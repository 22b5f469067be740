/**
 * The liability's settings as a finance team writes them (a JSON file, `--liability FILE` or
 * LEDGER_RECON_LIABILITY), checked at the edge: a misspelt key, a rate that is not an exact decimal
 * between 0 and 1, a dormancy that is not whole years or months, is refused with where it is and
 * the fix, never guessed. The same form is sealed in the close's manifest, so that a re-performance
 * reads back exactly the settings the close used. docs/liability.md documents every key.
 */
import { z } from 'zod';
import { settingsJson } from '../settings-json.js';
import { DEFAULT_LIABILITY_SETTINGS, type JurisdictionRule, type LiabilitySettings } from './liability.js';
import { parseRate, type Rate, rateBelow, rateOf, rateText } from './rate.js';

const rate = z.string().refine((text) => {
  const r = parseRate(text);
  return r !== null && !rateBelow(rateOf(1, 1), r);
}, 'a rate is a decimal between 0 and 1 ("0.12") or a percentage ("12%"), written as a string');
const months = z.number().int().min(1).max(1_200);
const jurisdiction = z
  .string()
  .regex(/^[A-Z]{2}(-[A-Z0-9]{1,3})?$/, 'a two-letter code ("NY"), or a country and subdivision ("US-NY")');

/** The file's form: every key optional, its default in DEFAULT_LIABILITY_SETTINGS. */
const FILE = z
  .object({
    standard: z.enum(['asc-606', 'ifrs-15', 'ifrs-9']).optional(),
    maturityMonths: months.optional(),
    haircut: rate.optional(),
    stateOfIncorporation: jurisdiction.optional(),
    defaultDormancyMonths: months.optional(),
    jurisdictions: z
      .record(jurisdiction, z.object({ dormancyMonths: months.optional(), exempt: z.boolean().optional() }).strict())
      .optional(),
    programs: z
      .record(
        z.string().min(1),
        z.object({ breakageRate: rate.optional(), jurisdiction: jurisdiction.optional() }).strict(),
      )
      .optional(),
  })
  .strict();

export type LiabilitySettingsFile = z.infer<typeof FILE>;

/** A problem with a settings file: where in it, and what is wrong. */
export class LiabilitySettingsError extends Error {}

/**
 * Settings from the file's JSON text, over the defaults (a jurisdiction listed replaces the
 * default's rule for it; the others stay).
 * @throws LiabilitySettingsError naming the key and what it must be.
 */
export function parseLiabilitySettings(text: string): LiabilitySettings {
  const file = settingsJson(FILE, text, LiabilitySettingsError);
  return settingsOf(file);
}

function settingsOf(file: LiabilitySettingsFile): LiabilitySettings {
  const d = DEFAULT_LIABILITY_SETTINGS;
  const defaultDormancyMonths = file.defaultDormancyMonths ?? d.defaultDormancyMonths;
  const jurisdictions = new Map<string, JurisdictionRule>(d.jurisdictions);
  for (const [code, rule] of Object.entries(file.jurisdictions ?? {}))
    jurisdictions.set(code, {
      dormancyMonths: rule.dormancyMonths ?? jurisdictions.get(code)?.dormancyMonths ?? defaultDormancyMonths,
      exempt: rule.exempt ?? false,
    });
  const programRates = new Map<string, Rate>();
  const programJurisdictions = new Map<string, string>();
  for (const [program, setting] of Object.entries(file.programs ?? {})) {
    if (setting.breakageRate !== undefined) programRates.set(program, parseRate(setting.breakageRate) as Rate);
    if (setting.jurisdiction !== undefined) programJurisdictions.set(program, setting.jurisdiction);
  }
  return {
    standard: file.standard ?? d.standard,
    maturityMonths: file.maturityMonths ?? d.maturityMonths,
    haircut: file.haircut === undefined ? d.haircut : (parseRate(file.haircut) as Rate),
    stateOfIncorporation: file.stateOfIncorporation ?? d.stateOfIncorporation,
    defaultDormancyMonths,
    jurisdictions,
    programRates,
    programJurisdictions,
  };
}

/** The settings whole, in the file's form, keys sorted: what the manifest seals and a re-performance reads back. */
export function liabilitySettingsFile(settings: LiabilitySettings): LiabilitySettingsFile {
  const programs: NonNullable<LiabilitySettingsFile['programs']> = {};
  const names = [...new Set([...settings.programRates.keys(), ...settings.programJurisdictions.keys()])].sort();
  for (const name of names) {
    const breakage = settings.programRates.get(name);
    const place = settings.programJurisdictions.get(name);
    programs[name] = {
      ...(breakage !== undefined ? { breakageRate: rateText(breakage) } : {}),
      ...(place !== undefined ? { jurisdiction: place } : {}),
    };
  }
  const jurisdictions: NonNullable<LiabilitySettingsFile['jurisdictions']> = {};
  for (const [code, rule] of [...settings.jurisdictions].sort(([a], [b]) => a.localeCompare(b)))
    jurisdictions[code] = { dormancyMonths: rule.dormancyMonths, exempt: rule.exempt };
  return {
    standard: settings.standard,
    maturityMonths: settings.maturityMonths,
    haircut: rateText(settings.haircut),
    stateOfIncorporation: settings.stateOfIncorporation,
    defaultDormancyMonths: settings.defaultDormancyMonths,
    jurisdictions,
    programs,
  };
}
