// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/cli_program.h"

#include <QCoreApplication>
#include <QDir>

namespace dice {

QString cliProgram() {
    const QString fromEnvironment = qEnvironmentVariable("DICE_CLI_PROGRAM");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("dice"));
}

} // namespace dice
