// Workspaces' brands (migrations/0019_workspace_brand.sql) as the host table reads them with the
// domains (resolve/hosts.ts), every REFRESH_MS: the names and colours each time, a logo's bytes
// (up to 32 KiB) only when its md5 is one not read before. An unchanged brand is the same object
// from read to read, so that the host table keeps the pages it built for it.

import type { Brand, BrandLogo } from '../core/brand.ts';
import type { Queryable } from './pool.ts';

interface BrandRow {
  id: string;
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

  /** The brand of every workspace that set one, by workspace id. */
  async read(db: Queryable): Promise<ReadonlyMap<number, Brand>> {
    const { rows } = await db.query<BrandRow>(
      'SELECT id, brand_name, brand_color, brand_logo_type, md5(brand_logo) AS logo_hash FROM workspaces ' +
        'WHERE brand_name IS NOT NULL OR brand_color IS NOT NULL OR brand_logo IS NOT NULL',
    );
    const unread = rows.filter((row) => row.logo_hash !== null && this.#known.get(Number(row.id))?.logo?.hash !== row.logo_hash);
    const logos = new Map<number, BrandLogo>();
    if (unread.length > 0) {
      const read = await db.query<LogoRow>(
        'SELECT id, brand_logo, brand_logo_type, md5(brand_logo) AS logo_hash FROM workspaces WHERE id = ANY($1::bigint[]) AND brand_logo IS NOT NULL',
        [unread.map((row) => row.id)],
      );
      for (const row of read.rows) {
        logos.set(Number(row.id), { type: row.brand_logo_type, base64: row.brand_logo.toString('base64'), hash: row.logo_hash });
      }
    }
    const brands = new Map<number, Brand>();
    for (const row of rows) {
      const id = Number(row.id);
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
