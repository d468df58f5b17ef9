import type { ControlProps } from '../shared/Field.tsx';
import type { Domain } from './api.ts';

interface DomainSelectProps {
  control: ControlProps;
  name: string;
  /** The workspace's domains, default first. */
  domains: readonly Domain[];
  /** A host; '' for the default domain, which the API takes when no domain is sent. */
  value: string;
  onChange: (value: string) => void;
}

/** The choice of a short domain for new links (one link, or an import's every row). */
export function DomainSelect({ control, name, domains, value, onChange }: DomainSelectProps) {
  return (
    <select {...control} name={name} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
      {domains.map((d) => (
        <option key={d.host} value={d.isDefault ? '' : d.host}>
          {d.isDefault ? `${d.host} (default)` : d.host}
        </option>
      ))}
    </select>
  );
}
