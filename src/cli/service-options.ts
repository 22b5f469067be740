import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { type ConfigFlags, SETTINGS } from '../config.js';

/** The six flags' values (a mapped type: commander's option values are a record). */
type ServiceFlags = { [K in keyof ConfigFlags]: ConfigFlags[K] };

/** Adds the six service flags, each overriding its environment variable. */
export function addServiceOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
): Command<A, O & ServiceFlags, G> {
  for (const setting of SETTINGS) {
    const placeholder = setting.kind === 'url' ? 'URL' : setting.kind === 'secret' ? 'SECRET' : 'ID';
    command.addOption(
      new Option(`${setting.flag} <${placeholder}>`, `${setting.description} (env ${setting.variable})`),
    );
  }
  // Added from SETTINGS, whose keys are ConfigFlags': the type says what the loop added.
  return command as Command<A, O & ServiceFlags, G>;
}
