import { generateKeys } from '@wraith-pq/sdk';
export const dynamic = 'force-dynamic';
export function GET() {
  return Response.json({ status: 'ok', probe: generateKeys().baseViewTag >= 0 });
}
