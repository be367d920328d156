import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";

/**
 * Asks `question` ("Cancel 27 jobs?") and waits for an answer: yes only for y or yes, so a bare Enter
 * keeps the jobs. Asked on stderr, so that stdout (--json) holds only the answer.
 */
export async function askYesNo(
  question: string,
  input: Readable = process.stdin,
  output: Writable = process.stderr,
): Promise<boolean> {
  const rl = createInterface({ input, output, terminal: false });
  // Input that ends before an answer (Ctrl-D) is a no: the question alone would wait for ever.
  const ended = new Promise<string>((ok) => rl.once("close", () => ok("")));
  try {
    const answer = await Promise.race([rl.question(`${question} [y/N] `), ended]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
