// A key's role as the new-key form offers it: the least first.
import type { Role } from '../../../src/auth/roles.ts';
import { listOf } from '../shared/lists.ts';

export const ROLE_CHOICES = listOf<Role>()(['viewer', 'member', 'admin']);

export const ROLE_LABELS: Readonly<Record<Role, string>> = { viewer: 'Viewer', member: 'Member', admin: 'Admin' };
