import { compareByNameThenId } from "./budget-tree";
import type { Node } from "./types";

export interface NodeOrder {
  readonly input: readonly Node[];
  readonly ids: readonly string[];
  readonly names: readonly string[];
  /** The nodes in (name, id) order and each id's index there; never mutated once built. */
  readonly sorted: readonly Node[];
  readonly index: ReadonlyMap<string, number>;
}

/**
 * The (name, id) order of a node list and its id index. Given the order of an earlier cycle
 * (`known`, a scheduler's memory), it is returned after an O(nodes) check — the same node objects in
 * the same places, ids and names unchanged — instead of a sort and a Map of every node; any other
 * list gets a fresh order.
 */
export function nodeOrder(nodes: readonly Node[], known: NodeOrder | null = null): NodeOrder {
  if (known && known.input.length === nodes.length) {
    let same = true;
    for (let i = 0; i < nodes.length && same; i++) {
      const n = nodes[i]!;
      same = n === known.input[i] && n.id === known.ids[i] && n.name === known.names[i];
    }
    if (same) return known;
  }
  const sorted = [...nodes].sort(compareByNameThenId);
  const index = new Map<string, number>();
  sorted.forEach((n, i) => index.set(n.id, i));
  const order: NodeOrder = { input: [...nodes], ids: nodes.map((n) => n.id), names: nodes.map((n) => n.name), sorted, index };
  return order;
}
