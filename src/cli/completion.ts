/**
 * `ledger-recon completion bash|zsh`: a completion script for the shell, generated from the
 * program's own commands and options, so it never lists an option the program lacks.
 *
 *   ledger-recon completion bash > /etc/bash_completion.d/ledger-recon
 *   ledger-recon completion zsh > "${fpath[1]}/_ledger-recon"
 */
import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { ConfigError } from '../errors.js';

/** Every command a user types, by its words (`books import`), with its options. */
interface Completed {
  words: string[];
  description: string;
  options: Option[];
  /** Subcommands' names, for a command that groups others (`books`). */
  subcommands: string[];
}

function commandsOf(program: Command): Completed[] {
  const visible = (command: Command) => command.name() !== 'help';
  const walk = (command: Command, words: string[]): Completed[] =>
    command.commands.filter(visible).flatMap((sub) => {
      const path = [...words, sub.name()];
      return [
        {
          words: path,
          description: sub.description(),
          options: sub.options as Option[],
          subcommands: sub.commands.filter(visible).map((c) => c.name()),
        },
        ...walk(sub, path),
      ];
    });
  return walk(program, []);
}

/** The flags of options, long and short. */
function flagsOf(options: readonly Option[]): string[] {
  return options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => !!flag));
}

/** Whether an option's value is a path (completed as files). */
function takesPath(option: Option): boolean {
  return /<(file|dir|folder|path|path\|url)>/.test(option.flags);
}

function bash(program: Command): string {
  const commands = commandsOf(program);
  const globals = flagsOf(program.options as Option[]).join(' ');
  const allOptions = [...(program.options as Option[]), ...commands.flatMap((c) => c.options)];
  const globalPaths = (program.options as Option[]).filter(takesPath).map((o) => o.long);
  // An option whose values are a fixed list completes them (--format, --log-level, --severity).
  const choices = new Map<string, string>();
  for (const option of allOptions)
    if (option.long && option.argChoices) choices.set(option.long, option.argChoices.join(' '));
  const values = [...choices]
    .map(([flag, list]) => `    ${flag}) COMPREPLY=( $(compgen -W '${list}' -- "$cur") ); return ;;`)
    .join('\n');
  const top = commands.filter((c) => c.words.length === 1).map((c) => c.words[0]);
  const cases = commands
    .map((c) => {
      const words = [...c.subcommands, ...flagsOf(c.options), '--help'].join(' ');
      const paths = c.options.filter(takesPath).map((o) => o.long);
      return `    '${c.words.join(' ')}') words='${words}'; paths='${paths.join(' ')}' ;;`;
    })
    .join('\n');
  return bashScript(top.join(' '), globals, cases, values, globalPaths.join(' '));
}

/** The bash script around its parts: the commands, the global flags, each command's words, the options' values, the options taking paths. */
function bashScript(top: string, globals: string, cases: string, values: string, globalPaths: string): string {
  return `# bash completion for ledger-recon (ledger-recon completion bash)
_ledger_recon() {
  local cur prev words paths command i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  command=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) if [[ -z "$command" || "$command" == "books" || "$command" == "findings" ]]; then command="\${command:+$command }\${COMP_WORDS[i]}"; fi ;;
    esac
  done
  words="${top} ${globals}"
  paths=""
  case "$command" in
${cases}
  esac
  case "$prev" in
${values}
  esac
  if [[ " $paths ${globalPaths} " == *" $prev "* ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
    return
  fi
  COMPREPLY=( $(compgen -W "$words ${globals}" -- "$cur") )
}
complete -o default -F _ledger_recon ledger-recon
`;
}

/** Text safe inside a zsh single-quoted `_arguments` spec: no quote, no brackets, no colon. */
function zshText(text: string): string {
  return text.replace(/'/g, '’').replace(/[[\]]/g, '').replace(/:/g, ' -').slice(0, 70);
}

function zsh(program: Command): string {
  const commands = commandsOf(program);
  const spec = (option: Option): string[] =>
    [option.long, option.short]
      .filter((flag): flag is string => !!flag)
      .map((flag) => {
        const value = option.required || option.optional ? (takesPath(option) ? ':path:_files' : ':value: ') : '';
        return `'${flag}[${zshText(option.description)}]${value}'`;
      });
  const globals = (program.options as Option[]).flatMap(spec).join(' ');
  const top = commands
    .filter((c) => c.words.length === 1)
    .map((c) => `    '${c.words[0]}:${zshText(c.description)}'`)
    .join('\n');
  const cases = commands
    .map((c) => {
      const subs = c.subcommands.length > 0 ? ` '1:command:(${c.subcommands.join(' ')})'` : '';
      return `    '${c.words.join(' ')}') _arguments ${c.options.flatMap(spec).join(' ')} ${globals}${subs} '*:file:_files' ;;`;
    })
    .join('\n');
  return zshScript(top, cases);
}

/** The zsh script around its parts: the commands with their descriptions, and each command's `_arguments`. */
function zshScript(top: string, cases: string): string {
  return `#compdef ledger-recon
# zsh completion for ledger-recon (ledger-recon completion zsh)
_ledger_recon() {
  local -a commands
  commands=(
${top}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local command="\${words[2]}"
  shift words; (( CURRENT-- ))
  if [[ "$command" == books || "$command" == findings ]] && (( CURRENT > 2 )); then
    command="$command \${words[2]}"
    shift words; (( CURRENT-- ))
  fi
  case "$command" in
${cases}
  esac
}
_ledger_recon "$@"
`;
}

/** Prints the completion script for `shell`. @throws ConfigError for a shell it does not know. */
export function completion(
  shell: string,
  program: Command,
  write = (text: string) => process.stdout.write(text),
): void {
  if (shell === 'bash') write(bash(program));
  else if (shell === 'zsh') write(zsh(program));
  else throw new ConfigError('shell', `completion for ${shell} is not made: bash and zsh are`);
}
