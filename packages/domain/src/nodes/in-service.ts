/**
 * The nodes that exist for scheduling, capacity and the default lists: every node but the retired ones,
 * whose rows stay only for their history and their jobs' placements. Raw SQL writes the same test as
 * `state <> 'RETIRED'`.
 */
export const IN_SERVICE = { state: { not: "RETIRED" } } as const;

/** The same test on a node read with its state. */
export const inService = (n: { state: string }): boolean => n.state !== "RETIRED";
