// Moving a saved view up or down its list (the shared views, or the agent's own): the API keeps
// each view's `position` and lists a group by it. A move is the group in its new order,
// numbered 0, 1, 2, ...; only the views whose number changes are sent (two, once a group is
// numbered). Pure.

export interface Placed {
  id: string;
  position: number;
}

/** The position changes that move view `id` by `delta` places (-1 up, 1 down) in `group`, in list order. */
export function moveChanges(group: readonly Placed[], id: string, delta: -1 | 1): Placed[] {
  const from = group.findIndex((view) => view.id === id);
  const to = from + delta;
  if (from < 0 || to < 0 || to >= group.length) return [];
  const order = [...group];
  const [moved] = order.splice(from, 1);
  order.splice(to, 0, moved!);
  return order.flatMap((view, position) => (view.position === position ? [] : [{ id: view.id, position }]));
}
