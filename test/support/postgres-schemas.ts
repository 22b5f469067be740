/** The postgres project's setup file: drops the schemas a test file made, once its tests end. */
import { afterAll } from 'vitest';
import { dropTestSchemas } from './test-db.js';

afterAll(dropTestSchemas);
