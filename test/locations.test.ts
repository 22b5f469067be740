import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLocations, isUserDataMirror } from '../src/locations.js';

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

  it('lets only the default mirror of the user data folder be made without --init', () => {
    const installed = defaultLocations({ HOME: '/home/recon' }, true);
    expect(isUserDataMirror(installed.db, installed)).toBe(true);
    expect(isUserDataMirror('/home/recon/typo/ledger.db', installed)).toBe(false);
    const checkout = defaultLocations({}, false);
    expect(isUserDataMirror(checkout.db, checkout)).toBe(false);
  });
});
