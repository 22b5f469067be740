import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLocations, isDefaultMirror } from '../src/locations.js';

describe('default locations', () => {
  it('are under the current folder in a checkout', () => {
    expect(defaultLocations({}, false)).toMatchObject({
      db: join('data', 'ledger.db'),
      reports: 'reports',
      demoDb: join('data', 'demo', 'ledger.db'),
      demoReports: join('reports', 'demo'),
      basis: 'current folder',
    });
  });

  it("are in the user's data folder when installed, XDG_DATA_HOME first when it is absolute", () => {
    expect(defaultLocations({ HOME: '/home/recon' }, true)).toMatchObject({
      db: '/home/recon/.local/share/ledger-recon/data/ledger.db',
      reports: '/home/recon/.local/share/ledger-recon/reports',
      basis: 'user data folder',
    });
    expect(defaultLocations({ HOME: '/home/recon', XDG_DATA_HOME: '/srv/xdg' }, true).db).toBe(
      '/srv/xdg/ledger-recon/data/ledger.db',
    );
    expect(defaultLocations({ HOME: '/home/recon', XDG_DATA_HOME: 'relative' }, true).db).toBe(
      '/home/recon/.local/share/ledger-recon/data/ledger.db',
    );
  });

  it('are under LEDGER_RECON_HOME wherever the code runs from; LEDGER_RECON_DB and _OUT win', () => {
    for (const installed of [true, false]) {
      expect(defaultLocations({ LEDGER_RECON_HOME: '/var/lib/ledger-recon' }, installed)).toMatchObject({
        db: '/var/lib/ledger-recon/data/ledger.db',
        reports: '/var/lib/ledger-recon/reports',
        demoReports: '/var/lib/ledger-recon/reports/demo',
        basis: 'LEDGER_RECON_HOME',
      });
    }
    const named = { LEDGER_RECON_HOME: '/h', LEDGER_RECON_DB: '/m.db', LEDGER_RECON_OUT: '/r' };
    expect(defaultLocations(named, true)).toMatchObject({ db: '/m.db', reports: '/r' });
  });

  it('lets the default mirror nobody typed be made without --init, but not LEDGER_RECON_DB nor under a LEDGER_RECON_HOME that is not there', () => {
    const home = mkdtempSync(join(tmpdir(), 'ledger-recon-home-'));
    try {
      const installed = { HOME: '/home/recon' };
      expect(isDefaultMirror(defaultLocations(installed, true).db, installed, true)).toBe(true);
      expect(isDefaultMirror('/home/recon/typo/ledger.db', installed, true)).toBe(false);
      expect(isDefaultMirror(defaultLocations({}, false).db, {}, false)).toBe(true);
      const typed = { LEDGER_RECON_DB: '/srv/recon/ledger.db' };
      expect(isDefaultMirror(defaultLocations(typed, false).db, typed, false)).toBe(false);
      const there = { LEDGER_RECON_HOME: home };
      expect(isDefaultMirror(defaultLocations(there, true).db, there, true)).toBe(true);
      const typo = { LEDGER_RECON_HOME: join(home, 'hmoe') };
      expect(isDefaultMirror(defaultLocations(typo, true).db, typo, true)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
