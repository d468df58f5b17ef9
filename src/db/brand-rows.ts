// Workspaces' brands (migrations/0019_workspace_brand.sql) as the host table reads them, in the
// same query as the domains (domain-rows.ts readServedDomains), every REFRESH_MS: the names,
// colours and logos' md5 each time, a logo's bytes (up to 32 KiB) only when its md5 is one not read
// before. An unchanged brand is the same object from read to read, so that the host table keeps
// the pages it built for it.

import type { Brand, BrandLogo } from '../core/brand.ts';
import type { Queryable } from './pool.ts';

/** A workspace's brand columns, as a domain's row carries them (null brand_workspace: none). */
export interface BrandRow {
  brand_workspace: string | null;
  brand_name: string | null;
  brand_color: string | null;
  brand_logo_type: string | null;
  logo_hash: string | null;
}

interface LogoRow {
  id: string;
  brand_logo: Buffer;
  brand_logo_type: string;
  logo_hash: string;
}

export class BrandReader {
  /** What the last read gave, by workspace id. */
  #known = new Map<number, Brand>();

  /** The brand of each workspace in `read` that set one, by workspace id; the bytes of logos not read before are read from `db`. */
  async of(db: Queryable, read: readonly BrandRow[]): Promise<ReadonlyMap<number, Brand>> {
    const rows = new Map<number, BrandRow>();
    for (const row of read) {
      if (row.brand_workspace === null || (row.brand_name === null && row.brand_color === null && row.logo_hash === null)) continue;
      rows.set(Number(row.brand_workspace), row);
    }
    const unread = [...rows].filter(([id, row]) => row.logo_hash !== null && this.#known.get(id)?.logo?.hash !== row.logo_hash);
    const logos = new Map<number, BrandLogo>();
    if (unread.length > 0) {
      const fetched = await db.query<LogoRow>(
        'SELECT id, brand_logo, brand_logo_type, md5(brand_logo) AS logo_hash FROM workspaces WHERE id = ANY($1::bigint[]) AND brand_logo IS NOT NULL',
        [unread.map(([id]) => id)],
      );
      for (const row of fetched.rows) {
        logos.set(Number(row.id), { type: row.brand_logo_type, base64: row.brand_logo.toString('base64'), hash: row.logo_hash });
      }
    }
    const brands = new Map<number, Brand>();
    for (const [id, row] of rows) {
      const known = this.#known.get(id);
      // A logo changed between the two reads is the newer one; the next read sees its hash again and keeps it.
      const logo = row.logo_hash === null ? null : (logos.get(id) ?? (known?.logo?.hash === row.logo_hash ? known.logo : null));
      const same = known !== undefined && known.name === row.brand_name && known.color === row.brand_color && known.logo === logo;
      brands.set(id, same ? known : Object.freeze({ name: row.brand_name, color: row.brand_color, logo }));
    }
    this.#known = brands;
    return brands;
  }
}
