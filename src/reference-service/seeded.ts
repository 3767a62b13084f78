/**
 * What the demo data and the requests behind it are both made from: the seeded generator and the
 * entitlements. A module of its own, so that the demo (which reads requests to put the right ones
 * first) and the requests (made from these) do not import each other.
 */

/** What the demo's requests ask for, in the approvals and in their request items alike. */
export const ENTITLEMENTS: ReadonlyArray<{ name: string; type: string; source: string }> = [
  { name: 'Domain Admins', type: 'group', source: 'Active Directory' },
  { name: 'VPN Users', type: 'group', source: 'Active Directory' },
  { name: 'Finance Share RW', type: 'group', source: 'Active Directory' },
  { name: 'Sales Rep', type: 'role', source: 'Salesforce' },
  { name: 'System Administrator', type: 'role', source: 'Salesforce' },
  { name: 'ReadOnlyAccess', type: 'policy', source: 'AWS' },
  { name: 'AdministratorAccess', type: 'policy', source: 'AWS' },
  { name: 'platform-team', type: 'team', source: 'GitHub' },
  { name: 'SAP_FI_APPROVER', type: 'role', source: 'SAP' },
  { name: 'HR Partner', type: 'role', source: 'Workday' },
];

/** mulberry32: small, fast, and the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
