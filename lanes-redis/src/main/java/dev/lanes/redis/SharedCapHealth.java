package dev.lanes.redis;

/** Which cap a {@link SharedCap} enforces now. */
public enum SharedCapHealth {
  /** Redis answers: every task runs with a global permit. */
  GLOBAL,
  /** Redis is away and the policy is {@link FaultPolicy#localShare}: tasks run under the local share. */
  LOCAL_SHARE,
  /** Redis is away and the policy is {@link FaultPolicy#failFast}: tasks are refused. */
  UNAVAILABLE,
  /** Closed: takes no more tasks. */
  CLOSED
}
