// The command a job runs is one shell string (the node agent runs it with /bin/sh -c). What follows
// `--` on the CLI is argv: already split by the user's shell, so it is quoted back argument by argument
// and runs exactly as typed (`-- bash -c 'for i in 1 2; do echo $i; done'` stays three arguments).
// A single argument is taken as a shell command line as it is (`-- "python a.py && python b.py"`).

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as the shell reads it back unchanged: as is when safe, else in single quotes. */
export function shellQuote(arg: string): string {
  if (arg !== "" && SAFE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** argv after `--` as the job's command line. */
export function commandLine(argv: readonly string[]): string {
  if (argv.length === 1) return argv[0]!;
  return argv.map(shellQuote).join(" ");
}

/**
 * A script file as the job's command: its text as is (sh runs it), or, when it starts with a #! line,
 * handed to that interpreter with -c so bash or python syntax works (`#!/usr/bin/env bash` included).
 */
export function scriptCommand(text: string): string {
  const first = text.split("\n", 1)[0]!;
  if (!first.startsWith("#!")) return text;
  const interpreter = first.slice(2).trim();
  if (!interpreter) return text;
  return `${interpreter} -c ${shellQuote(text)}`;
}
