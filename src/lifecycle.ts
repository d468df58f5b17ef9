/** Set `draining` on SIGTERM: readiness fails, so that load balancers stop sending traffic before the server closes. */
export interface Lifecycle {
  draining: boolean;
}
