/** Waits for `work` at most `ms`: a stop's goodbye to a database that does not answer must not hold it. */
export function atMost(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((r) => (timer = setTimeout(r, ms)));
  return Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}
