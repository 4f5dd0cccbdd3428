"""The queue's own migration line: `NNNN_description.sql` files for the queue's tables (jobs, their
tenants' limits, schedules, workers, the outcome counters), numbered apart from any host's.

The queue ships its schema; a host applies it with its runner before its own line (tenderflow's
runner, `tenderflow.migrations`, keeps this line's record in `queue_migrations`). The files are
package data: nothing here runs SQL.

Until the line was drawn these files were the application's migrations 0001, 0006, 0008, 0013, 0035,
0040, 0050, 0055 and 0071, and 0005 was the first statement of 0017: their comments still cite those
numbers (a file is checksummed and never edited once applied).
"""
