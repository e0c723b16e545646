/*
 * Test-only: lets a PostgreSQL 18 older than Debian's 17.12 restore what
 * pg_upgrade dumps from 17.12.
 *
 * PostgreSQL 17.12 stamps every column with an attribute option pg_attver,
 * and pg_dump of 18.6 (Debian sid) copies it into the dump as ALTER TABLE
 * ... ALTER COLUMN ... SET (pg_attver=N), which that server rejects
 * ("unrecognized parameter"), so pg_upgrade fails for any database with a
 * table. Loaded in the new cluster while pg_upgrade restores (and only
 * then), this drops that option from such statements before they run. The
 * pg_upgrade suite loads it only where the new server rejects the option.
 */
#include "postgres.h"

#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"

PG_MODULE_MAGIC;

void _PG_init(void);

static ProcessUtility_hook_type previous_hook = NULL;

static void
drop_attver(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree, ProcessUtilityContext context,
			ParamListInfo params, QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (IsA(pstmt->utilityStmt, AlterTableStmt))
	{
		AlterTableStmt *stmt;
		List	   *cmds = NIL;
		ListCell   *lc;

		if (readOnlyTree)
			pstmt = copyObject(pstmt);
		stmt = (AlterTableStmt *) pstmt->utilityStmt;
		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst(lc);

			if (cmd->subtype == AT_SetOptions)
			{
				List	   *kept = NIL;
				ListCell   *o;

				foreach(o, (List *) cmd->def)
				{
					DefElem    *option = lfirst(o);

					if (strcmp(option->defname, "pg_attver") != 0)
						kept = lappend(kept, option);
				}
				if (kept == NIL)
					continue;
				cmd->def = (Node *) kept;
			}
			cmds = lappend(cmds, cmd);
		}
		if (cmds == NIL)
			return;
		stmt->cmds = cmds;
		readOnlyTree = false;
	}
	(previous_hook ? previous_hook : standard_ProcessUtility) (pstmt, queryString, readOnlyTree, context, params,
															   queryEnv, dest, qc);
}

void
_PG_init(void)
{
	previous_hook = ProcessUtility_hook;
	ProcessUtility_hook = drop_attver;
}
