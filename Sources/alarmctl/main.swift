print("alarmctl")
