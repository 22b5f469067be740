import { Option, type Command } from 'commander';
import { SETTINGS } from '../config.js';

/** Adds the six service flags, each overriding its environment variable. */
export function addServiceOptions(command: Command): Command {
  for (const setting of SETTINGS) {
    const placeholder = setting.kind === 'url' ? 'URL' : setting.kind === 'secret' ? 'SECRET' : 'ID';
    command.addOption(
      new Option(`${setting.flag} <${placeholder}>`, `${setting.description} (env ${setting.variable})`),
    );
  }
  return command;
}
