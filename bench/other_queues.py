def drain_pgqueuer(admin_url, jobs):
    return "todo"
def drain_procrastinate(admin_url, jobs):
    return "todo"
