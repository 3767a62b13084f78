import { describe, expect, it } from 'vitest';
import { catalogOf, coverageOf } from '../../src/collections/coverage.js';
import type { CollectAttempt } from '../../src/store/index.js';
import { attemptOf } from '../helpers/attempts.js';

const attempt = (query: CollectAttempt['query'], collectors: string[], at = 0): CollectAttempt =>
  attemptOf({
    id: `a${at}`,
    at: new Date(at),
    query,
    runs: collectors.map((c, i) => ({ runId: String(i), collector: c, state: undefined })),
  });

describe('what earlier runs tell of the collectors a start covers', () => {
  // Newest first, as the store lists them.
  const trail = [
    attempt({ name: 'ad accounts' }, ['AD Accounts'], 3),
    attempt({ application: 'Active Directory' }, ['AD Accounts', 'AD Groups'], 2),
    attempt({ name: 'Salesforce Users' }, ['Salesforce Users'], 1),
  ];
  const catalog = catalogOf(trail);

  it('names a collector as the service first named it', () => {
    expect(coverageOf({ name: '  AD   accounts ' }, catalog)).toEqual({ collectors: ['AD Accounts'], exact: true });
    expect(coverageOf({ name: 'Never Seen' }, catalog)).toEqual({ collectors: ['Never Seen'], exact: true });
  });

  it('knows exactly what an application covers once it has been started whole', () => {
    expect(coverageOf({ application: 'active directory', force: true }, catalog)).toEqual({
      collectors: ['AD Accounts', 'AD Groups'],
      exact: true,
    });
  });

  it('knows only in part what everything covers until everything has been started', () => {
    expect(coverageOf({}, catalog)).toEqual({ collectors: ['Salesforce Users', 'AD Accounts', 'AD Groups'], exact: false });
    const withAll = catalogOf([attempt({}, ['AD Accounts', 'AD Groups', 'Salesforce Users', 'AWS IAM'], 4), ...trail]);
    expect(coverageOf({}, withAll)).toEqual({ collectors: ['AD Accounts', 'AD Groups', 'Salesforce Users', 'AWS IAM'], exact: true });
  });

  it('knows nothing of an application never started whole, beyond what named runs said', () => {
    expect(coverageOf({ application: 'Workday' }, catalog)).toEqual({ collectors: [], exact: false });
  });
});
