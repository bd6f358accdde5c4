-- wrk script for bench.sh: POST the JSON body in $BODY to /obx, count answers by status.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
