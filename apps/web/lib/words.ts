/** "1 GPU", "2 GPUs", "1,024 starts": a count and its noun, in the number's grammatical number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}
