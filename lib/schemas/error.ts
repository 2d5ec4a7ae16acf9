/**
 * The error body every endpoint answers with (API.md "Errors").
 */
import { z } from 'zod';

export const errorResponse = z
  .object({
    error: z.object({
      code: z.string().describe('Stable UPPER_SNAKE_CASE code, e.g. VALIDATION_ERROR'),
      message: z.string().describe('What went wrong and how to fix it; never contains request values'),
      details: z
        .array(
          z.object({
            path: z.string().describe('The input field, dot-separated (e.g. view_tags.3)'),
            issue: z.string().describe('The rule it broke'),
          }),
        )
        .optional()
        .describe('One entry per invalid field'),
    }),
  })
  .describe('Error');
