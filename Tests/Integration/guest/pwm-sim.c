// SPDX-License-Identifier: GPL-2.0
/*
 * pwm-sim: a PWM controller with no hardware behind it, for the integration tests' guest
 * (Debian's kernels have no PWM driver QEMU can back). The kernel's PWM core does the rest:
 * /sys/class/pwm (export, period, duty_cycle, enable, polarity), its checks and error codes,
 * its uevents and its pwm:pwm_apply trace event. Like a Raspberry Pi's controller it refuses
 * a period shorter than two cycles of its clock.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pwm.h>

static unsigned int npwm = 2;
module_param(npwm, uint, 0444);
MODULE_PARM_DESC(npwm, "channels (a Pi 4's PWM0 has 2)");

static unsigned long min_period_ns = 40;
module_param(min_period_ns, ulong, 0444);
MODULE_PARM_DESC(min_period_ns, "shortest period accepted (bcm2835: 2 cycles of 50 MHz)");

static int pwm_sim_apply(struct pwm_chip *chip, struct pwm_device *pwm, const struct pwm_state *state)
{
	/* The core keeps the state once this accepts it. */
	return state->period < min_period_ns ? -EINVAL : 0;
}

static const struct pwm_ops pwm_sim_ops = {
	.apply = pwm_sim_apply,
	.owner = THIS_MODULE,
};

static int pwm_sim_probe(struct platform_device *pdev)
{
	struct pwm_chip *chip = devm_kzalloc(&pdev->dev, sizeof(*chip), GFP_KERNEL);

	if (!chip)
		return -ENOMEM;
	chip->dev = &pdev->dev;
	chip->ops = &pwm_sim_ops;
	chip->npwm = npwm;
	return devm_pwmchip_add(&pdev->dev, chip);
}

static struct platform_driver pwm_sim_driver = {
	.probe = pwm_sim_probe,
	.driver = { .name = "pwm-sim" },
};

static struct platform_device *pwm_sim_device;

static int __init pwm_sim_init(void)
{
	int error = platform_driver_register(&pwm_sim_driver);

	if (error)
		return error;
	pwm_sim_device = platform_device_register_simple("pwm-sim", -1, NULL, 0);
	if (IS_ERR(pwm_sim_device)) {
		platform_driver_unregister(&pwm_sim_driver);
		return PTR_ERR(pwm_sim_device);
	}
	return 0;
}

static void __exit pwm_sim_exit(void)
{
	platform_device_unregister(pwm_sim_device);
	platform_driver_unregister(&pwm_sim_driver);
}

module_init(pwm_sim_init);
module_exit(pwm_sim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Simulated PWM controller for alarmd's integration tests (out of tree)");
