/** The scheduling core counts integer seconds on the Unix clock; the database stores timestamptz. */
export const toSec = (d: Date): number => Math.floor(d.getTime() / 1000);
export const toSecOrNull = (d: Date | null | undefined): number | null => (d ? toSec(d) : null);
export const fromSec = (s: number): Date => new Date(s * 1000);
export const nowSec = (): number => Math.floor(Date.now() / 1000);
