#!/usr/bin/env node
/**
 * The CLI's entry. Loading the program takes most of a second on a busy machine: the signals
 * are held first (held-signals.ts), so a Ctrl-C or a service manager's stop that comes while it
 * loads stops the command it starts, with its one line and exit code, not Node's default death.
 */
import { holdSignals } from './held-signals.js';

holdSignals();
await import('./program-main.js');
