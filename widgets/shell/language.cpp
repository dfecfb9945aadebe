// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/shell/language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace dice {

Language::Language(QObject* parent)
    : QObject(parent) {}

QStringList Language::available() {
    return {QStringLiteral("en"), QStringLiteral("ja")};
}

QString Language::displayName(const QString& code) {
    if (code == QLatin1String("ja"))
        return QStringLiteral("日本語");
    return QStringLiteral("English");
}

QString Language::fromLocale(const QString& localeName) {
    const QString code = localeName.left(2).toLower();
    return available().contains(code) ? code : QStringLiteral("en");
}

bool Language::apply(const QString& code) {
    if (!available().contains(code))
        return false;
    if (code == m_current && (code == QLatin1String("en") || m_translator))
        return true;
    auto* translator = new QTranslator(this);
    if (code != QLatin1String("en") &&
        !translator->load(QStringLiteral(":/i18n/dice_%1.qm").arg(code))) {
        delete translator;
        return false;
    }
    auto* qtTranslator = new QTranslator(this);
    if (code == QLatin1String("en") ||
        !qtTranslator->load(QStringLiteral("qtbase_%1").arg(code),
                            QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        delete qtTranslator;
        qtTranslator = nullptr;
    }
    if (m_translator) {
        QCoreApplication::removeTranslator(m_translator);
        delete m_translator;
        m_translator = nullptr;
    }
    if (m_qtTranslator) {
        QCoreApplication::removeTranslator(m_qtTranslator);
        delete m_qtTranslator;
        m_qtTranslator = nullptr;
    }
    // Removing a translator sends LanguageChange to every widget, so switching back to the
    // source language needs nothing more.
    if (code == QLatin1String("en")) {
        delete translator;
    } else {
        m_translator = translator;
        QCoreApplication::installTranslator(m_translator);
        if (qtTranslator) {
            m_qtTranslator = qtTranslator;
            QCoreApplication::installTranslator(m_qtTranslator);
        }
    }
    m_current = code;
    Q_EMIT changed(code);
    return true;
}

} // namespace dice
