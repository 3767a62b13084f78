import { LINK_CALLBACK } from '../../../render/link.js';
import type { Handlers } from '../routes.js';
import { linkSubmission } from './link.js';

/** Each modal's callback id and the listener of its submission. */
export function viewRoutes(): Handlers {
  return new Map([[LINK_CALLBACK, linkSubmission]]);
}
