// What an abuse report is made of, one list each: its reasons, its statuses, and the operators'
// actions on it (migrations/0024_abuse_reports.sql checks the same). Pure; the dashboard reads it too.

export const REPORT_REASONS = ['phishing', 'malware', 'spam', 'illegal', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export const REPORT_STATUSES = ['open', 'actioned', 'dismissed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const REPORT_ACTIONS = ['disable_link', 'block_domain', 'suspend_workspace', 'dismiss'] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];
