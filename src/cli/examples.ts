/** Each command's examples, shown at the end of its help (a test keeps one per command): the command line without `ledger-recon`, and what it does. */
export const EXAMPLES: Record<string, readonly (readonly [string, string])[]> = {
  simulate: [
    ['simulate', 'both services on 127.0.0.1:4010 and :4020'],
    ['simulate --plant --manifest data/manifest.json', 'every break, and where'],
    ['simulate --faults 0.1 --live 500', 'faults, and activity twice a second'],
    ['simulate --quiet > sim.env', 'the six export lines alone'],
  ],
  ping: [
    ['ping', 'both services answer and accept the credentials'],
    ['--settings /etc/ledger-recon.env ping --json', 'for a monitor'],
  ],
  doctor: [
    ['doctor', 'everything a night needs, one line each'],
    ['doctor --quiet', 'the failures alone'],
  ],
  sync: [
    ['sync', 'the first full sync, then incremental ones'],
    ['sync --full', 'weekly: re-read the whole ledger'],
    ['sync -v', 'each retry with its cause'],
  ],
  check: [
    ['check', 'judge the newest sync, record the run'],
    ['check --dry-run --fail-on warning', 'look, record nothing'],
    ['check --json --findings-json findings.json', 'for a script'],
  ],
  run: [
    ['run', 'the nightly job: quiet on success'],
    ['run --json >> nights.jsonl', 'one JSON record a night, failed too'],
    ['run --full', 'weekly: re-read the whole ledger'],
    ['run --books /srv/exports', "match the merchant's books too"],
    ['run --push-metrics http://pushgateway:9091', 'metrics for the monitor'],
  ],
  'books import': [
    ['books import exports/tenders-2026-11.csv', 'the kind from the name'],
    ['books import pos.csv --kind tenders --map pos.map.json', 'a mapping of your own'],
  ],
  report: [
    ['report', "the newest run's workbook, CSV and JSON again"],
    ['report --run 7 --preparer "A. Auditor"', 'a past run, signed off'],
  ],
  close: [
    ['close --period 2026-10', 'October, UTC cut-offs'],
    ['close --period 2026-10 --tz America/New_York', "the merchant's midnight"],
  ],
  sql: [
    ['sql "SELECT * FROM open_findings"', 'CSV unless on a terminal'],
    ['sql --format json --file query.sql', 'a statement kept in a file'],
  ],
  verify: [
    ['verify', 'every manifest and file in the reports folder'],
    ['verify --run 7', "re-perform night 7's ledger population from the mirror"],
    ['verify --run 7 --set expiry-grace-minutes=0 --set fail-on=warning', 'what would change'],
    ['verify --close 2026-10', "re-perform October's close from the mirror"],
    ['verify --dir /mnt/audit-copy --json', "an auditor's copy, offline"],
  ],
  export: [
    ['export hledger --out ledger.journal', 'then: hledger -f ledger.journal check'],
    ['export hledger --out - | hledger -f - balance', 'straight into hledger'],
  ],
  'findings list': [
    ['findings list --severity error', 'the open errors'],
    ['findings list --code GC_BALANCE_MISMATCH --min-age 8 --json', 'old ones, for a script'],
  ],
  history: [
    ['history', 'the last 30 runs, newest first'],
    ['history --limit 5 --json', 'for a script'],
  ],
  fleet: [
    ['fleet --server "postgres://recon@db/recon"', 'every merchant whose mirror the database keeps'],
    ['fleet data/*.db --late-after-hours 30 --json', 'SQLite mirrors, for a monitor'],
  ],
  accept: [['accept 3f9c… --note "refund agreed, TICKET-42" --until 2026-12-31', 'known until year end']],
  demo: [
    ['demo', 'the nightly job on the simulator, every break planted'],
    ['demo --db "postgres://me@localhost/recon?schema=demo"', 'the same in PostgreSQL'],
  ],
  completion: [
    ['completion bash > /etc/bash_completion.d/ledger-recon', 'bash, for every user'],
    ['completion zsh > "${fpath[1]}/_ledger-recon"', 'zsh'],
  ],
};
