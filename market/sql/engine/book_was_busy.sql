-- Whether a call that holds its book since p_locked_at should release it at COMMIT, before
-- the WAL flush: when it waited for the book (more than 0.25 ms from the CALL's start to
-- holding the lock, where an idle book takes tens of microseconds), others are likely
-- queued behind it. Never with a synchronous standby (migration 0008's docstring says why).
CREATE OR REPLACE FUNCTION engine.book_was_busy(p_locked_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'pg_temp'
AS $function$
    SELECT p_locked_at - statement_timestamp() > interval '250 microseconds'
           AND current_setting('synchronous_standby_names') = ''
$function$;
