package dev.rwml.env.tau2;

/** A domain's database, which a tool box copies for snapshots and independent episodes. */
public interface DomainDb<D extends DomainDb<D>> {

    /** An independent copy: changing one never changes the other. */
    D copy();
}
