import { splitJobEnv } from "@tranche/contracts";

/**
 * A job's environment in its details list: the variables its submitter set (and the names of their
 * secrets), then apart the ones Tranche set for it (a job array's TRANCHE_ARRAY_INDEX...), shown rather
 * than hidden because the job's command reads them and a task's index tells which task this is.
 */
export function JobEnv({ env, secretEnvNames }: { env: Record<string, string>; secretEnvNames: string[] }) {
  const { own, tranche } = splitJobEnv(env);
  return (
    <>
      {own.length || secretEnvNames.length ? (
        <>
          <dt>Environment</dt>
          <dd data-testid="job-env">
            {own.map(([k, v]) => (
              <div key={k}>
                <code>
                  {k}={v}
                </code>
              </div>
            ))}
            {secretEnvNames.map((k) => (
              <div key={k}>
                <code>{k}</code> <span className="muted small">secret, not shown</span>
              </div>
            ))}
          </dd>
        </>
      ) : null}
      {tranche.length ? (
        <>
          <dt>Set by Tranche</dt>
          <dd data-testid="job-env-tranche">
            {tranche.map(([k, v]) => (
              <div key={k}>
                <code>
                  {k}={v}
                </code>
              </div>
            ))}
            <span className="muted small">Tranche sets these for the job; they were not part of its submission.</span>
          </dd>
        </>
      ) : null}
    </>
  );
}
