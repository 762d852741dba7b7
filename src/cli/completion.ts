import type { Command, Option } from 'commander';
import { usageError } from './errors.js';

/**
 * Shell completion, as gh and kubectl do it: a short script for each shell asks `svc __complete WORDS...`
 * for the candidates, so the scripts never go stale when commands or options change.
 */
const SCRIPTS: Record<string, string> = {
  // bash splits COMP_WORDS at ':' (COMP_WORDBREAKS), and event names have colons: the words are read from the
  // line itself, and the part of the word before its last ':' (which bash keeps) is taken off the candidates.
  bash: `# svc completion for bash: add  eval "$(svc completion bash)"  to ~/.bashrc
_svc_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" IFS=$' \\t\\n' keep i
  local -a words
  read -r -a words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  local cur="\${words[\${#words[@]}-1]}"
  IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(svc __complete "\${words[@]:1}" 2>/dev/null)" -- "$cur"))
  if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    keep="\${cur%"\${cur##*:}"}"
    for i in "\${!COMPREPLY[@]}"; do COMPREPLY[i]="\${COMPREPLY[i]#"$keep"}"; done
  fi
}
complete -o default -F _svc_complete svc
`,
  zsh: `#compdef svc
# svc completion for zsh: add  eval "$(svc completion zsh)"  to ~/.zshrc (after compinit)
_svc() {
  local -a candidates
  candidates=("\${(@f)$(svc __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _svc svc
`,
  fish: `# svc completion for fish: svc completion fish > ~/.config/fish/completions/svc.fish
function __svc_complete
  set -l words (commandline -opc)
  svc __complete $words[2..-1] (commandline -ct) 2>/dev/null
end
complete -c svc -f -a '(__svc_complete)'
`,
};

export const COMPLETION_SHELLS = Object.keys(SCRIPTS);

export function completionScript(shell: string): string {
  const script = SCRIPTS[shell];
  if (script === undefined) throw usageError(`no completion for "${shell}"`, `choose one of: ${COMPLETION_SHELLS.join(', ')}`);
  return script;
}

const isHidden = (command: Command): boolean => (command as unknown as { _hidden?: boolean })._hidden === true;
const longFlags = (options: readonly Option[]): string[] =>
  options.filter((o) => !o.hidden && o.long !== undefined).map((o) => o.long as string);

/**
 * Candidates for the last of `words` (the word being typed, possibly empty), given the words before it:
 * subcommands of the deepest command named so far, or its options and the global ones after a `-`.
 */
export function completeWords(program: Command, words: string[]): string[] {
  const current = words.at(-1) ?? '';
  let command = program;
  for (const word of words.slice(0, -1)) {
    if (word.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub !== undefined) command = sub;
  }
  const candidates = current.startsWith('-')
    ? [...longFlags(command.options), ...(command === program ? [] : longFlags(program.options).filter((o) => o !== '--version')), '--help']
    : command.commands.filter((c) => !isHidden(c)).map((c) => c.name());
  return [...new Set(candidates)].filter((c) => c.startsWith(current)).sort();
}
