/** Writes docs/catalogue.md from the checks' metadata: `npm run docs:catalogue`. */
import { writeFileSync } from 'node:fs';
import { cataloguePage } from '../src/checks/catalogue-page.js';

writeFileSync(new URL('../docs/catalogue.md', import.meta.url), cataloguePage());
