"""A user_data script written as heat-tempest-plugin's test_os_wait_condition writes its own."""

TEMPEST_STYLE = """#!/bin/sh
while true; do wc_notify --data-binary '{"status": "SUCCESS"}'; if [ $? -eq 0 ]; then break; else sleep 10; fi; done
# signals with a reason
while true; do wc_notify --data-binary '{"status": "SUCCESS", "reason": "signal2"}'; if [ $? -eq 0 ]; then break; else sleep 10; fi; done
# signals with data
while true; do wc_notify --data-binary '{"status": "SUCCESS", "reason": "signal3", "data": "data3"}'; if [ $? -eq 0 ]; then break; else sleep 10; fi; done
while true; do wc_notify --data-binary '{"status": "SUCCESS", "reason": "signal4", "data": "data4"}'; if [ $? -eq 0 ]; then break; else sleep 10; fi; done
# two signals with one id
while true; do wc_notify --data-binary '{"status": "SUCCESS", "id": "test5"}'; if [ $? -eq 0 ]; then break; else sleep 10; fi; done
while true; do wc_notify --data-binary '{"status": "SUCCESS", "id": "test5"}'; if [ $? -eq 0 ]; then break; else sleep 10; fi; done
_signal(){ while true; do wc_notify --data-binary '{"status": "SUCCESS"}'; if [ $? -eq 0 ]; then break; fi; done }
# twenty signals without a reason or data, in parallel
for i in `seq 1 20`; do _signal & done
wait
"""
