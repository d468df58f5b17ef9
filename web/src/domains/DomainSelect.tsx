import type { ControlProps } from '../shared/Field.tsx';
import type { Domain } from './api.ts';

interface DomainSelectProps {
  control: ControlProps;
  name: string;
  /** The workspace's domains, default first. */
  domains: readonly Domain[];
  /** The host links go on when none is named: the workspace's default domain (use-domains.ts). */
  defaultHost: string | undefined;
  /** A host; '' for the default (defaultHost), which the API takes when no domain is sent. */
  value: string;
  onChange: (value: string) => void;
}

/**
 * The choice of a short domain for new links (one link, or an import's every row). Every option is a host, the
 * deployment's included: once a workspace has a default domain of its own, sending no domain no longer means the
 * deployment's.
 */
export function DomainSelect({ control, name, domains, defaultHost, value, onChange }: DomainSelectProps) {
  return (
    <select {...control} name={name} value={value === '' ? defaultHost : value} onChange={(event) => onChange(event.currentTarget.value)}>
      {domains.map((d) => (
        <option key={d.host} value={d.host}>
          {d.host === defaultHost ? `${d.host} (default)` : d.host}
        </option>
      ))}
    </select>
  );
}
