// A per-workspace share of what all tenants of an instance share: at most `max` of some kind of
// request (the list's exports and searches, LIST_SLOW_PER_WORKSPACE) under way at once for one
// workspace, so that one workspace's flood cannot hold every connection of the list's pool nor
// open its breaker for the others (docs/security.md).

export class WorkspaceSlots {
  readonly #max: number;
  readonly #taken = new Map<number, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** A slot of `workspaceId`'s, and how to give it back (once; later calls do nothing); undefined when it has none left. */
  take(workspaceId: number): (() => void) | undefined {
    const taken = this.#taken.get(workspaceId) ?? 0;
    if (taken >= this.#max) return undefined;
    this.#taken.set(workspaceId, taken + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#taken.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.#taken.set(workspaceId, left);
      else this.#taken.delete(workspaceId);
    };
  }

  /** Slots under way, all workspaces together. */
  get taken(): number {
    let taken = 0;
    for (const n of this.#taken.values()) taken += n;
    return taken;
  }
}
